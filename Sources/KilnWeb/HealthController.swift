//===----------------------------------------------------------------------===//
//
// This source file is part of the Kiln open source project
//
// Copyright (c) 2026 the Kiln project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Hummingbird
import KilnCore
import KilnPresentation
import KilnStore
import ServiceLifecycle

/// What `/health` reads besides the store: the data directory whose disk must keep room, and
/// the scheduler's pulse (docs/operations.md).
public struct HealthSettings: Sendable {
    /// The data directory, whose file system must keep `minFreeDisk` bytes free; nil: not judged.
    public var dataDirectory: String?
    /// `health.min-free-disk`.
    public var minFreeDisk: Int
    /// The scheduler's pulse; nil where this process runs none.
    public var scheduler: Pulse?
    /// How long the scheduler may go without turning.
    public var schedulerLimit: Duration
    /// How long a query may go unanswered before the store counts as gone.
    public var storeLimit: Duration = .seconds(1)
    /// How often the store is asked while `/health` is read.
    public var interval: Duration = .milliseconds(500)
    /// How long after the last read the store is still asked.
    public var attention: Duration = .seconds(60)

    public init(dataDirectory: String?, minFreeDisk: Int = 1 << 30, scheduler: Pulse? = nil, schedulerLimit: Duration = .seconds(30)) {
        self.dataDirectory = dataDirectory
        self.minFreeDisk = minFreeDisk
        self.scheduler = scheduler
        self.schedulerLimit = schedulerLimit
    }
}

/// Asks the store one query every `interval` while `/health` is read (a load balancer or a
/// watchdog reads it every few seconds; an idle host asks nothing), so that a request never waits
/// on a database that does not answer: a query outstanding longer than `storeLimit` is the
/// store's silence.
actor HealthMonitor: Service {
    let store: any HostRegistry
    let settings: HealthSettings
    let clock: MonotonicClock
    /// When the query under way was asked; nil between queries.
    private var asked: ContinuousClock.Instant?
    /// The last query's end: when, how long it took, and its error if any.
    private var last: (at: ContinuousClock.Instant, seconds: Double, error: StoreError?)?
    /// When `/health` was last read.
    private var readAt: ContinuousClock.Instant?
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(store: any HostRegistry, settings: HealthSettings, clock: MonotonicClock) {
        self.store = store
        self.settings = settings
        self.clock = clock
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func run() async throws {
        let wakeups = wakeups
        await cancelWhenGracefulShutdown {
            for await _ in wakeups {
                while await self.attended(), await self.askAndWait() {}
            }
        }
    }

    /// Whether `/health` was read within `attention`.
    private func attended() -> Bool {
        readAt.map { clock.since($0) < settings.attention } ?? false
    }

    /// Asks the store, then sleeps an interval; false once canceled.
    private func askAndWait() async -> Bool {
        let start = clock.now
        asked = start
        var failure: StoreError?
        do {
            try await store.ping()
        } catch {
            failure = error
        }
        let end = clock.now
        asked = nil
        last = (end, (end - start).seconds, failure)
        return await clock.sleep(for: settings.interval)
    }

    /// The host's health now. Waits up to `storeLimit` for an answer asked within the last
    /// interval: the first read after a quiet while asks afresh.
    func check() async -> HealthCheck {
        let start = clock.now
        readAt = start
        wake.yield()
        var now = start
        while last.map({ start - $0.at > settings.interval }) ?? true, now - start < settings.storeLimit {
            await clock.sleep(for: .milliseconds(10))
            now = clock.now
        }
        return HealthCheck(store: storeFinding(now: now), disk: diskFinding(), scheduler: schedulerFinding(now: now))
    }

    private func storeFinding(now: ContinuousClock.Instant) -> HealthCheck.Finding {
        let limit = settings.storeLimit.seconds
        if let asked, now - asked > settings.storeLimit { return .storeSilent(seconds: (now - asked).seconds, limit: limit) }
        guard let last else { return .storeNotAsked(seconds: nil) }
        // While read, the store is asked every interval: an answer much older means the asking stopped.
        let age = now - last.at
        if asked == nil, age > settings.interval + settings.storeLimit * 2 { return .storeNotAsked(seconds: age.seconds) }
        if let error = last.error { return .storeFailed(reason: error.description) }
        if last.seconds > limit { return .storeSilent(seconds: last.seconds, limit: limit) }
        return .storeAnswered(seconds: last.seconds)
    }

    private func diskFinding() -> HealthCheck.Finding {
        guard let directory = settings.dataDirectory else { return .diskFree(free: Int.max, wanted: 0) }
        var status = statvfs()
        guard statvfs(directory, &status) == 0 else {
            return .diskUnreadable(path: directory, reason: String(cString: strerror(errno)))
        }
        let (free, overflow) = Int(status.f_bavail).multipliedReportingOverflow(by: Int(status.f_frsize))
        return .diskFree(free: overflow ? Int.max : free, wanted: settings.minFreeDisk)
    }

    private func schedulerFinding(now: ContinuousClock.Instant) -> HealthCheck.Finding {
        guard let pulse = settings.scheduler else { return .noScheduler }
        return .schedulerTurned(seconds: pulse.silence(at: now).seconds, limit: settings.schedulerLimit.seconds)
    }
}

/// `GET /health`: 200 with JSON when the store answers a query within a second, the data
/// directory's disk has room and the scheduler turns; otherwise 503 with the same JSON, each
/// part saying how it stands. For load balancers, monitors and systemd's watchdog.
struct HealthController {
    let monitor: HealthMonitor

    struct Answer: Encodable {
        struct Part: Encodable {
            var ok: Bool
            var detail: String
        }
        var status: String
        var store: Part
        var disk: Part
        var scheduler: Part
    }

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("health") { _, _ in
            let check = await monitor.check()
            func part(_ finding: HealthCheck.Finding) -> Answer.Part { Answer.Part(ok: finding.healthy, detail: finding.sentence) }
            let answer = Answer(
                status: check.healthy ? "ok" : "unavailable", store: part(check.store), disk: part(check.disk), scheduler: part(check.scheduler))
            return Response(
                status: check.healthy ? .ok : .serviceUnavailable,
                headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: try API.encode(answer))))
        }
    }
}
