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

/// What mail and `/metrics` are composed from: notifications, digests and totals.
@Suite("Store: notifications, digests and statistics")
struct MailStoreTests {
    @Test("Completed integrations wait to be notified, oldest first, until marked; marking all leaves none", arguments: Engine.allCases)
    func notifications(engine: Engine) async throws {
        let test = try await TestStore(engine)
        for index in 0..<3 { try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: Double(index) * 100) }
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: test.at(400))
        let waiting = try await test.store.integrationsToNotify(limit: 10)
        #expect(waiting.map(\.number) == [1, 2, 3], "a queued integration is not notified of")
        #expect(try await test.store.integrationsToNotify(limit: 2).map(\.number) == [1, 2])
        try await test.store.markNotified([waiting[0].id, waiting[1].id], now: test.at(500))
        #expect(try await test.store.integrationsToNotify(limit: 10).map(\.number) == [3])
        try await test.integrate("other", outcome: IntegrationOutcome(result: .warnings), at: 600)
        #expect(try await test.store.markAllNotified(now: test.at(700)) == 2)
        #expect(try await test.store.integrationsToNotify(limit: 10).isEmpty)
        #expect(try await test.store.markAllNotified(now: test.at(800)) == 0)
    }

    @Test("A digest counts a period's results, issues and durations, skips pull requests, and names the slowest tests", arguments: Engine.allCases)
    func digest(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let warning = IntegrationIssue(type: .warning, message: "unused", file: "a.swift", line: 1, fingerprint: "w")
        try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: 0)  // before the period
        try await test.integrate("app", outcome: IntegrationOutcome(result: .warnings, issues: [warning]), at: 1000)
        let tests = [
            TestCase(suite: "S", name: "fast", status: .passed, duration: 0.1), TestCase(suite: "S", name: "slow", status: .passed, duration: 3),
            TestCase(suite: "S", name: "medium", status: .passed, duration: 1),
        ]
        try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded, tests: tests), at: 2000)
        // A pull request's integration in the period is not the branch's.
        let pull = PullRequest(number: 7, title: "t", author: "a", url: nil, head: "h", base: "main", ref: "refs/pull/7/head", fork: false)
        let queued = try await test.store.enqueue(
            QueueRequest(bot: "app", cause: .webhook, commit: "p1", branch: "main", pullRequest: pull), now: test.at(2500))
        let claim = try #require(try await test.store.claim(queued.integration.id, owner: "test", now: test.at(2501)))
        try await test.store.complete(claim, outcome: IntegrationOutcome(result: .buildErrors), now: test.at(2510))
        try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: 9000)  // after the period

        let digest = try await test.store.digest(bot: "app", from: test.at(500), to: test.at(5000))
        #expect(digest.count == 2)
        #expect(digest.results == [.warnings: 1, .succeeded: 1])
        #expect(digest.issuesIntroduced == 1)
        #expect(digest.issuesResolved == 1, "the warning resolved by the next build")
        #expect(
            digest.averageDuration.map { abs($0 - 9) < 0.001 } == true,
            "each ran 9 s (claimed 1 s after queueing): \(String(describing: digest.averageDuration))")
        #expect(digest.slowestTests.map(\.name) == ["slow", "medium", "fast"])
        #expect(digest.last?.number == 3)
        let empty = try await test.store.digest(bot: "app", from: test.at(20_000), to: test.at(30_000))
        #expect(empty.count == 0 && empty.averageDuration == nil && empty.slowestTests.isEmpty)
        #expect(empty.last?.number == 5, "the last integration before the period's end")
    }

    @Test("Statistics count results, the queue, durations by bucket, webhooks and mail", arguments: Engine.allCases)
    func statistics(engine: Engine) async throws {
        let test = try await TestStore(engine)
        try await test.store.record("app", outcome: IntegrationOutcome(result: .succeeded), at: test.at(0), duration: 5)
        try await test.store.record("app", outcome: IntegrationOutcome(result: .succeeded), at: test.at(100), duration: 50)
        try await test.store.record("app", outcome: IntegrationOutcome(result: .buildErrors), at: test.at(200), duration: 500)
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: test.at(300))
        _ = try await test.store.enqueue(QueueRequest(bot: "other", cause: .manual, branch: "main"), now: test.at(300))
        _ = try await test.store.claimNext(owner: "test 1 1", now: test.at(301))
        let delivery = WebhookDelivery(
            forge: "github", event: "push", repository: nil, branch: nil, commit: nil, outcome: .ignored, statusCode: 202, detail: nil,
            integrations: [], receivedAt: test.at(400))
        _ = try await test.store.receiveWebhook(delivery, queue: [], now: test.at(400))
        try await test.store.queueMail(OutgoingMail(dedupeKey: "m", recipients: ["a@example.com"], subject: "s", message: [1]), now: test.at(0))

        let figures = try await test.store.statistics(durationBuckets: [10, 100, 1000])
        #expect(figures.integrationsByResult == [.succeeded: 2, .buildErrors: 1])
        #expect(figures.queued == 1 && figures.running == 1)
        // Completed 1 s after queueing, so each took its duration less a second.
        #expect(figures.durationCount == 3)
        #expect(abs(figures.durationSum - (4 + 49 + 499)) < 0.001)
        #expect(figures.durationBucketCounts == [1, 2, 3])
        #expect(figures.webhooksByOutcome == [.ignored: 1])
        #expect(figures.outboxByState == [.queued: 1])
    }
}
