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
import KilnGit
import KilnStore
import KilnTestSupport
import Logging
import Testing

@testable import KilnServer

@Suite("Periodic schedules, with an injected clock")
struct PeriodicScheduleTests {
    static func date(_ text: String) -> Date {
        ISO8601DateFormatter().date(from: text) ?? .distantPast
    }

    func makeScheduler(
        directory: TemporaryDirectory, store: SQLiteStore, clock: ManualClock, timers: Bool = false, tick: Duration = .seconds(1)
    ) -> Scheduler {
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let registry = BotRegistry(directory: directory.url("Bots"), store: store, logger: logger)
        let sequencer = IntegrationSequencer(
            store: store, mirrors: Mirrors(directory: directory.url("mirrors")), layout: DataDirectory(directory.path), serverEnvironment: [:],
            secretFiles: { [] }, logger: logger)
        let utc = TimeZone(identifier: "UTC") ?? .current
        return Scheduler(
            registry: registry, store: store, sequencer: sequencer, settings: .init(executors: 0, timeZone: utc, tick: tick), logger: logger,
            owner: "test", clock: timers ? clock.timers : clock.wall)
    }

    /// Waits (30 s at most, in real time) for `condition`: a bound for a machine busy with the
    /// suites beside this one (a round that takes milliseconds alone was seen to take over 10 s
    /// there), not a pause; it returns as soon as `condition` holds.
    static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("waited 30 s for \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func periodic(_ store: SQLiteStore) async throws -> [Integration] {
        try await store.integrations(bot: "nightly", limit: 100, before: nil).filter { $0.cause == .periodic }
    }

    func runQueued(_ store: SQLiteStore, at date: Date) async throws {
        while let claimed = try await store.claimNext(owner: "test", now: date) {
            try await store.complete(claimed, outcome: IntegrationOutcome(result: .succeeded), now: date)
        }
    }

    @Test("A fresh server waits for the first period; then one integration per period")
    func firstPeriod() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("Bots/nightly.yml", "repository: {url: /srv/git/app.git}\nschedule: {on-commit: false, periodic: daily 02:00}\n")
        let store = try SQLiteStore.open(dataDirectory: directory.path)
        let clock = ManualClock(Self.date("2026-03-10T01:00:00Z"))
        let scheduler = makeScheduler(directory: directory, store: store, clock: clock)
        await scheduler.reloadIfChanged()

        await scheduler.queuePeriodic()
        clock.set(Self.date("2026-03-10T01:59:59Z"))
        await scheduler.queuePeriodic()
        #expect(try await periodic(store).isEmpty)

        clock.set(Self.date("2026-03-10T02:00:01Z"))
        await scheduler.queuePeriodic()
        await scheduler.queuePeriodic()
        #expect(try await periodic(store).count == 1)
        try await runQueued(store, at: clock.now)

        clock.set(Self.date("2026-03-11T02:00:00Z"))
        await scheduler.queuePeriodic()
        #expect(try await periodic(store).count == 2)
    }

    @Test("The running scheduler's timers follow its clock: an hour's tick passes when the test moves the clock, not before")
    func timersOnTheClock() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("Bots/nightly.yml", "repository: {url: /srv/git/app.git}\nschedule: {on-commit: false, periodic: daily 02:00}\n")
        let store = try SQLiteStore.open(dataDirectory: directory.path)
        let clock = ManualClock(Self.date("2026-03-10T01:00:00Z"))
        let scheduler = makeScheduler(directory: directory, store: store, clock: clock, timers: true, tick: .seconds(3600))
        let running = Task { try await scheduler.run() }
        defer { running.cancel() }
        // Its loops have looked once and sleep on the clock: nothing is due at 01:00.
        try await Self.waitUntil("the scheduler's loops to sleep on the clock") { clock.sleeping >= 4 }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await periodic(store).isEmpty)

        // Half the tick: 01:30, no loop wakes.
        clock.advance(by: 1800)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await periodic(store).isEmpty)
        // The whole tick: 02:00:01, the periodic loop wakes and queues the night's integration.
        clock.advance(by: 1801)
        try await Self.waitUntil("the periodic integration to be queued") { try await periodic(store).count == 1 }
        let queuedAt = try #require(try await periodic(store).first?.queuedAt)
        #expect(abs(queuedAt.timeIntervalSince(clock.now)) < 1, "queued at the clock's time, \(queuedAt)")
    }

    @Test("Periods missed while the server was down run once at start, not once per missed period")
    func missedPeriods() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("Bots/nightly.yml", "repository: {url: /srv/git/app.git}\nschedule: {on-commit: false, periodic: daily 02:00}\n")
        let store = try SQLiteStore.open(dataDirectory: directory.path)
        // The last periodic integration ran on the 10th; the server comes back on the 13th at 10:00.
        _ = try await store.enqueue(QueueRequest(bot: "nightly", cause: .periodic, branch: "main"), now: Self.date("2026-03-10T02:00:00Z"))
        try await runQueued(store, at: Self.date("2026-03-10T02:00:00Z"))
        let clock = ManualClock(Self.date("2026-03-13T10:00:00Z"))
        let scheduler = makeScheduler(directory: directory, store: store, clock: clock)
        await scheduler.reloadIfChanged()

        await scheduler.queuePeriodic()
        await scheduler.queuePeriodic()
        #expect(try await periodic(store).count == 2, "one catch-up integration for the three missed nights")
        try await runQueued(store, at: clock.now)

        clock.set(Self.date("2026-03-13T23:00:00Z"))
        await scheduler.queuePeriodic()
        #expect(try await periodic(store).count == 2, "the next is due at 02:00 on the 14th")
        clock.set(Self.date("2026-03-14T02:00:30Z"))
        await scheduler.queuePeriodic()
        #expect(try await periodic(store).count == 3)
    }
}
