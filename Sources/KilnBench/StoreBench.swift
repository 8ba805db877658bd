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

/// Store: 100,000 integrations across 50 bots; recording speed, the front page's query and a bot's
/// history page.
struct StoreBench {
    let work: Workspace
    let bots = (1...50).map { "bot-\($0)" }

    func run(into table: Table) async throws {
        let store = try SQLiteStore.open(dataDirectory: work.url("store"))
        try await store.syncBots(
            bots.map { BotState(name: $0, file: "Bots/\($0).yml", repository: "https://example.com/\($0).git", branch: "main") }, now: Date())

        // Recording: queue, claim and complete, each completion with 5 issues and 20 tests.
        let tests = (1...20).map { TestCase(suite: "AppTests", name: "test\($0)", status: $0 == 7 ? .failed : .passed, duration: 0.01) }
        let issues = (1...5).map {
            IntegrationIssue(
                type: .warning, message: "variable 'x\($0)' was never used", file: "Sources/App/File\($0).swift", line: $0 * 10, fingerprint: "w\($0)"
            )
        }
        let outcome = IntegrationOutcome(result: .testFailures, tests: tests, issues: issues)
        let start = ContinuousClock.now
        try await record(store, count: 1000, outcome: outcome)
        let seconds = Measure.milliseconds(ContinuousClock.now - start) / 1000
        table.add(
            "store: completed integrations recorded", target: "≥ 1,000/s", measured: String(format: "%.0f/s", 1000 / seconds),
            comparison: "each: queue + claim + complete with 5 issues, 20 tests")

        // Fill up to 100,000 integrations.
        try await record(store, count: 99_000, outcome: IntegrationOutcome(result: .succeeded, tests: Array(tests.prefix(3))))
        let overview = try await Measure.median(runs: 21) { _ = try await store.botOverviews() }
        table.add("front page query, 100,000 integrations", target: "< 5 ms", measured: Measure.format(overview), comparison: "50 bots")
        let history = try await Measure.median(runs: 21) { _ = try await store.integrations(bot: "bot-25", limit: 50, before: 1500) }
        table.add("a bot's history page (50 rows)", target: "< 5 ms", measured: Measure.format(history), comparison: "bot-25, 2,000 integrations")
        try await Self.markNotified(store)
    }

    /// Fills `store` with `count` completed integrations of the 50 bots (for the web benchmark).
    func fill(_ store: SQLiteStore, count: Int) async throws {
        try await store.syncBots(
            bots.map { BotState(name: $0, file: "Bots/\($0).yml", repository: "https://example.com/\($0).git", branch: "main") }, now: Date())
        try await record(store, count: count, outcome: IntegrationOutcome(result: .succeeded))
        try await Self.markNotified(store)
    }

    /// A served history has been notified: a server marks each completed integration at its next
    /// tick. Left unmarked, the web benchmark's server spent its first second marking 100,000 rows
    /// (a 24 MB write) and measured that instead of a start.
    private static func markNotified(_ store: some MailOutbox) async throws {
        _ = try await store.markAllNotified(now: Date())
    }

    private func record(_ store: SQLiteStore, count: Int, outcome: IntegrationOutcome) async throws {
        for index in 0..<count {
            let bot = bots[index % bots.count]
            _ = try await store.enqueue(QueueRequest(bot: bot, cause: .poll, commit: String(format: "%040d", index), branch: "main"), now: Date())
            guard let claimed = try await store.claimNext(owner: "bench", now: Date()) else { throw BenchError.unexpected("nothing to claim") }
            try await store.complete(claimed, outcome: outcome, now: Date())
        }
    }
}
