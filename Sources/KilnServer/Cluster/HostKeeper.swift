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
import KilnCore
import KilnPresentation
import KilnStore
import Logging
import ServiceLifecycle

/// Keeps this host known to the others, and looks after the hosts that went silent.
///
/// Six times a lease it heartbeats (on the database's clock: `Store.heartbeat`) with what the
/// pages show of a host. The beats run on the store's control lane and in a loop of their own,
/// so that nothing this host does (claims, logs, pages, a slow recovery) delays them. When a beat
/// finds a silent host's work (the database's answer), a second loop ends those integrations and
/// queues their commits again (`Store.recoverLostHosts`; on SQLite, with one host, there are none).
public actor HostKeeper: Service {
    let store: any HostRegistry
    let scheduler: Scheduler
    let registry: BotRegistry
    let host: String
    let executors: Int
    let lease: Duration
    /// The toolchains this host offers to matrix cells, as its heartbeat says.
    let toolchains: [String]
    /// Where it serves other hosts, once it listens.
    let address: HostAddress?
    let logger: Logger
    let clock: WallClock
    private var reachable = true

    public init(
        store: any HostRegistry, scheduler: Scheduler, registry: BotRegistry, host: String, executors: Int, lease: Duration, logger: Logger,
        clock: WallClock = .system, toolchains: [String] = [Matrix.defaultToolchain], address: HostAddress? = nil
    ) {
        self.toolchains = toolchains
        self.address = address
        self.clock = clock
        self.store = store
        self.scheduler = scheduler
        self.registry = registry
        self.host = host
        self.executors = executors
        self.lease = lease
        self.logger = logger
    }

    /// How often a host beats: six times a lease, so that a beat or two lost on the way do not
    /// make it look gone.
    static func interval(lease: Duration) -> Duration { max(lease / 6, .milliseconds(100)) }

    public func run() async throws {
        let (interval, address) = (Self.interval(lease: lease), address)
        let (recoveries, recover) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in recoveries { await self.recover() }
                }
                // Until it listens, it beats often: other hosts learn its address at once.
                await Self.beating(every: { address.map { $0.current == nil } == true ? .milliseconds(100) : interval }, on: self.clock.monotonic) {
                    if await self.beat() { recover.yield() }
                }
                recover.finish()
            }
        }
        logger.info("host keeper stopped")
    }

    /// Calls `beat` now and every `interval` until the task is canceled: a server's beats (with
    /// the recovery of lost hosts) and `kiln run`'s.
    static func beating(every interval: Duration, on clock: MonotonicClock, _ beat: @Sendable () async -> Void) async {
        await beating(every: { interval }, on: clock, beat)
    }

    static func beating(every interval: @Sendable () -> Duration, on clock: MonotonicClock, _ beat: @Sendable () async -> Void) async {
        while !Task.isCancelled {
            await beat()
            await clock.sleep(for: interval())
        }
    }

    /// One heartbeat; true when lost hosts' work is to be recovered.
    func beat() async -> Bool {
        let report = HostReport(
            name: host, version: KilnVersion.current, executors: executors, busy: await scheduler.busy, botsDigest: await registry.digest,
            lease: lease, toolchains: toolchains, address: address?.current)
        do {
            let due = try await store.heartbeat(report)
            if !reachable { logger.info("the database answers again") }
            reachable = true
            return due
        } catch {
            if reachable { logger.error("cannot heartbeat: other hosts will take this one as gone after \(lease)", metadata: ["error": "\(error)"]) }
            reachable = false
            return false
        }
    }

    /// Ends the integrations of hosts whose lease ran out and queues their commits again.
    func recover() async {
        do {
            for integration in try await store.recoverLostHosts(now: clock.now) {
                logger.warning(
                    "ended an integration of a lost host and queued its commit again",
                    metadata: ["bot": "\(integration.bot)", "number": "\(integration.number)", "reason": "\(integration.reason?.sentence ?? "")"])
            }
        } catch {
            logger.error("cannot recover the integrations of lost hosts", metadata: ["error": "\(error)"])
        }
    }
}
