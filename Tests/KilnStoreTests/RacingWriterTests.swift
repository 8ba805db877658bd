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
import KilnTestSupport
import Synchronization
import Testing

@testable import KilnStore

@Suite("Store: racing writers")
struct RacingWriterTests {
    @Test("On PostgreSQL a push racing the completion of its bot's running integration never deadlocks, round after round")
    func pushRacesCompletion() async throws {
        let test = try await TestStore(.postgres)
        let (store, other) = (test.store, try await test.another())
        for round in 0..<100 {
            let running = String(repeating: "a", count: 30) + String(format: "%010d", round)
            let pushed = String(repeating: "b", count: 30) + String(format: "%010d", round)
            _ = try await store.enqueue(QueueRequest(bot: "app", cause: .webhook, commit: running, branch: "main"), now: Date())
            let claim = try #require(try await store.claimNext(owner: "build-1 1 1", now: Date()))
            // The push supersedes the running integration as it completes: each waits on a row the other holds.
            let delivery = WebhookDelivery(forge: "generic", event: "push", commit: pushed, outcome: .queued, statusCode: 202, receivedAt: Date())
            async let push = other.receiveWebhook(
                delivery, queue: [QueueRequest(bot: "app", cause: .webhook, commit: pushed, branch: "main")], close: [], now: Date())
            async let completion = store.complete(claim, outcome: IntegrationOutcome(result: .triggerError), now: Date())
            let (receipt, ended) = try await (push, completion)
            #expect(ended.result == .triggerError && receipt.queued.first?.integration.commit == pushed)
            let next = try #require(try await store.claimNext(owner: "build-1 1 1", now: Date()))
            try await store.complete(next, outcome: IntegrationOutcome(result: .succeeded), now: Date())
        }
    }

    @Test("On SQLite the first subscriber starts the watch while a commit is under way, and neither waits for the other")
    func subscribingDuringACommit() async throws {
        let directory = try TemporaryDirectory()
        let store = try SQLiteStore.open(path: directory.url("kiln.sqlite"))
        // The watch's first look waits for the writer; the commit, once made, tells the hub. The
        // hub held its lock while it started the watch, and the two waited for each other: each
        // runs on a thread of its own here, so that a deadlock fails the test instead of stalling it.
        let done = Mutex((committed: false, changes: AsyncStream<Void>?.none))
        Task {
            _ = try await store.write("a slow commit", notify: .queue) { _ in usleep(300_000) }
            done.withLock { $0.committed = true }
        }
        try await Task.sleep(for: .milliseconds(50))
        Thread.detachNewThread {
            let changes = store.queueChanges()
            done.withLock { $0.changes = changes }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while done.withLock({ !$0.committed || $0.changes == nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let changes = try #require(done.withLock { $0.changes }, "subscribing waited for the commit, and the commit for it")
        #expect(done.withLock { $0.committed })
        let heard = Task { () -> Bool in
            for await _ in changes { return true }
            return false
        }
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        #expect(await heard.value, "the watch started runs")
    }
}
