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
import KilnStore
import KilnTestSupport
import Testing

/// Counts calls from the watcher's thread.
final class Calls: @unchecked Sendable {
    // Guarded by `lock`.
    private var count = 0
    private let lock = NSLock()

    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

@Suite("Watching the store for changes")
struct ChangeWatcherTests {
    /// Waits until `store`, on PostgreSQL, hears every host's changes (its `LISTEN` in place and
    /// answering), for `limit` at most. Its subscribers cannot say: the listener wakes them once
    /// when it connects, but a subscriber that came after that first wake-up (the store runs from
    /// its opening, and on a loaded machine the listener can be in place before the test
    /// subscribes) hears nothing until the next change.
    static func listening(_ store: any Store, within limit: Duration = .seconds(60)) async throws -> Bool {
        let postgres = try #require(store as? PostgresStore)
        let deadline = ContinuousClock.now + limit
        while !postgres.engine.hearsChanges, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        return postgres.engine.hearsChanges
    }

    @Test(
        "A commit from another store on the same database reaches every subscriber; reads and empty claims are no change",
        arguments: Engine.allCases)
    func seesCommits(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let calls = Calls()
        let subscriptions = (0..<2).map { _ in test.store.changes() }
        let listeners = subscriptions.map { changes in Task { for await _ in changes { calls.add() } } }
        defer { for listener in listeners { listener.cancel() } }
        if engine == .postgres {
            // From the moment PostgreSQL's listener is in place, every commit is heard.
            #expect(try await Self.listening(test.store), "the listener connected within 60 s")
        }
        try await Task.sleep(for: .milliseconds(300))
        let before = calls.value
        for _ in 0..<5 {
            _ = try await test.store.botOverviews()
            _ = try await test.store.claimNext(owner: "idle", now: Date())
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(calls.value == before, "reading, or claiming from an empty queue, made the store look changed")
        // Another process, or host, would do the same: open the database and commit.
        let other = try await test.another()
        _ = try await other.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        // Milliseconds on a quiet machine (`make bench` measures it); the bound is for a loaded one.
        let deadline = ContinuousClock.now + .seconds(10)
        while calls.value < before + 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(calls.value >= before + 2, "both subscribers hear of the commit")
    }

    @Test(
        "After a burst of writes the watcher looks again once they settle (another process's commit becomes visible after its last write), then rests"
    )
    func looksAgainWhenSettled() async throws {
        let directory = try TemporaryDirectory("kiln-watch")
        let (changes, settled) = (Calls(), Calls())
        let onChange: @Sendable () -> Void = { changes.add() }
        let onSettled: @Sendable () -> Void = { settled.add() }
        let watcher = ChangeWatcher(databasePath: directory.url("kiln.sqlite"), onChange: onChange, onSettled: onSettled)
        defer { watcher?.stop() }
        #expect(watcher != nil, "inotify")
        func wait(for calls: Calls, toReach count: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while calls.value < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        }
        try await Task.sleep(for: .milliseconds(1200))
        #expect(settled.value == 0, "an idle file is not looked at")
        // What a commit writes: frames appended to the WAL, each write an event.
        let wal = try #require(FileHandle(forWritingAtPath: try directory.write("kiln.sqlite-wal", "")))
        for _ in 0..<3 { try wal.write(contentsOf: Data(repeating: 1, count: 4096)) }
        try wal.close()
        try await wait(for: changes, toReach: 1)
        #expect(changes.value >= 1)
        try await wait(for: settled, toReach: 2)
        #expect(settled.value == 2, "a look soon after the burst, and one a second later")
        try await Task.sleep(for: .milliseconds(2500))
        #expect(settled.value == 2, "then none until the file changes again")
    }

    @Test(
        "Queue subscribers hear queueing and completing, stop subscribers a cancel; a claim, a step or a mail wakes only page caches",
        arguments: Engine.allCases)
    func kindsOfChange(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let (stop, queue, data) = (Calls(), Calls(), Calls())
        let subscriptions = [(test.store.stopChanges(), stop), (test.store.queueChanges(), queue), (test.store.changes(), data)]
        let listeners = subscriptions.map { changes, calls in Task { for await _ in changes { calls.add() } } }
        defer { for listener in listeners { listener.cancel() } }
        if engine == .postgres {
            #expect(try await Self.listening(test.store), "the listener connected within 60 s")
        }
        /// Runs `change` and says which subscribers (stop, queue, data) heard of it: everyone that
        /// will hear does so with the data subscriber, which hears every change.
        func heard(_ change: () async throws -> Void) async throws -> [Bool] {
            try await Task.sleep(for: .milliseconds(300))
            let before = [stop.value, queue.value, data.value]
            try await change()
            let deadline = ContinuousClock.now + .seconds(10)
            while data.value == before[2], ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            try await Task.sleep(for: .milliseconds(100))
            return zip([stop.value, queue.value, data.value], before).map { $0 > $1 }
        }
        // On SQLite too: this process's commits say what they were, and its watcher hears them
        // as data (`ForeignCommits`).
        let queueing = try await heard { _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date()) }
        #expect(queueing == [false, true, true])
        var claim: Claim?
        #expect(try await heard { claim = try await test.store.claimNext(owner: "build-1 1 1", now: Date()) } == [false, false, true])
        let claimed = try #require(claim)
        #expect(try await heard { try await test.store.advance(claimed, to: .building, now: Date()) } == [false, false, true])
        let mail = try await heard {
            try await test.store.queueMail(OutgoingMail(dedupeKey: "m", recipients: ["a@example.com"], subject: "s", message: []), now: Date())
        }
        #expect(mail == [false, false, true])
        #expect(try await heard { try await test.store.requestCancel(claimed.id, reason: .canceled) } == [true, true, true])
        #expect(
            try await heard { try await test.store.complete(claimed, outcome: IntegrationOutcome(result: .canceled), now: Date()) } == [
                false, true, true,
            ])
    }

    @Test(
        "A push that supersedes a running integration wakes the stop subscribers, from this process or another host; on SQLite another process's commit wakes every kind",
        arguments: Engine.allCases)
    func stopsAndOtherProcesses(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let (stop, queue) = (Calls(), Calls())
        let listeners = [(test.store.stopChanges(), stop), (test.store.queueChanges(), queue)].map { changes, calls in
            Task { for await _ in changes { calls.add() } }
        }
        defer { for listener in listeners { listener.cancel() } }
        func waitFor(_ calls: Calls, above count: Int) async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while calls.value <= count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            return calls.value > count
        }
        if engine == .postgres { _ = try await waitFor(queue, above: 0) }
        _ = try await test.store.enqueue(
            QueueRequest(bot: "app", cause: .webhook, commit: String(repeating: "a", count: 40), branch: "main"), now: Date())
        let claimed = try #require(try await test.store.claimNext(owner: "build-1 1 1", now: Date()))
        try await Task.sleep(for: .milliseconds(300))
        let stops = stop.value
        let push = QueueRequest(bot: "app", cause: .webhook, commit: String(repeating: "b", count: 40), branch: "main")
        #expect(try await test.store.enqueue(push, now: Date()).superseded == [claimed.id])
        #expect(try await waitFor(stop, above: stops), "the running integration's scheduler hears at once that it must stop")

        try await Task.sleep(for: .milliseconds(300))
        let (stopsBefore, queuesBefore) = (stop.value, queue.value)
        let other = try await test.another()
        let first = QueueRequest(bot: "other", cause: .webhook, commit: String(repeating: "c", count: 40), branch: "main")
        _ = try await other.enqueue(first, now: Date())
        #expect(try await waitFor(queue, above: queuesBefore), "the scheduler hears of another process's queueing")
        switch engine {
        case .sqlite:
            // `kiln trigger` without a server's socket, or `kiln token revoke`: the watcher cannot
            // tell what another process's commit was, so everyone hears of it.
            #expect(try await waitFor(stop, above: stopsBefore), "and of what it may have asked to stop")
        case .postgres:
            // NOTIFY names the kind: another host's queueing asks nothing to stop...
            try await Task.sleep(for: .milliseconds(500))
            #expect(stop.value == stopsBefore, "another host's queueing wakes no stop subscriber here")
            // ...and another host's superseding push stops what this host runs.
            let running = try #require(try await test.store.claimNext(owner: "build-1 1 2", now: Date()))
            #expect(running.bot == "other")
            let again = QueueRequest(bot: "other", cause: .webhook, commit: String(repeating: "d", count: 40), branch: "main")
            #expect(try await other.enqueue(again, now: Date()).superseded == [running.id])
            #expect(try await waitFor(stop, above: stopsBefore), "another host's superseding push wakes this host's stop subscribers")
        }
    }
}
