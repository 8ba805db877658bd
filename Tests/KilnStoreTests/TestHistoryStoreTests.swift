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

@Suite("Store: a test's history")
struct TestHistoryStoreTests {
    @Test("A test's results come newest first, from the branch's integrations only, with commit and host", arguments: Engine.allCases)
    func history(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let statuses: [TestStatus] = [.passed, .failed, .flaky, .passed]
        for (index, status) in statuses.enumerated() {
            let tests = [
                TestCase(suite: "AppTests", name: "testRace", status: status, duration: Double(index + 1), message: status == .passed ? nil : "late"),
                TestCase(suite: "AppTests", name: "testOther", status: .passed, duration: 0.1),
            ]
            try await test.integrate(
                "app", outcome: IntegrationOutcome(result: .succeeded, tests: tests), at: Double(index * 100), commit: "c\(index)")
        }
        try await test.integrate(
            "lib",
            outcome: IntegrationOutcome(result: .succeeded, tests: [TestCase(suite: "AppTests", name: "testRace", status: .failed, duration: 9)]))
        // A pull request's integration tests other code: it is not the branch's history.
        _ = try await store.enqueue(PullRequestStoreTests.headOf(7, "pr1"), now: test.at(500))
        let pull = try #require(try await store.claimNext(owner: "test", now: test.at(501)))
        try await store.complete(
            pull,
            outcome: IntegrationOutcome(result: .testFailures, tests: [TestCase(suite: "AppTests", name: "testRace", status: .failed, duration: 7)]),
            now: test.at(510))

        let history = try await store.testHistory(bot: "app", suite: "AppTests", name: "testRace", limit: 50)
        #expect(history.runs.map(\.number) == [4, 3, 2, 1])
        #expect(history.runs.map(\.test.status) == [.passed, .flaky, .failed, .passed])
        #expect(history.runs.map(\.commit) == ["c3", "c2", "c1", "c0"])
        #expect(history.runs.map(\.test.duration) == [4, 3, 2, 1])
        #expect(history.runs[1].test.message == "late")
        #expect(history.runs.allSatisfy { $0.host != nil && $0.endedAt != nil })
        let latest = try await store.testHistory(bot: "app", suite: "AppTests", name: "testRace", limit: 2)
        #expect(latest.runs.map(\.number) == [4, 3])
        let unknown = try await store.testHistory(bot: "app", suite: "AppTests", name: "testNothing", limit: 50)
        #expect(unknown.runs.isEmpty)
    }

    @Test("The quarantined tests of a bot's last branch integration come with their last results", arguments: Engine.allCases)
    func quarantined(engine: Engine) async throws {
        let test = try await TestStore(engine)
        for status in [TestStatus.failed, .passed, .failed] {
            let tests = [
                TestCase(suite: "AppTests", name: "testRace", status: status, duration: 1, quarantined: true),
                TestCase(suite: "AppTests", name: "testOther", status: .passed, duration: 1),
            ]
            try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded, tests: tests))
        }
        let quarantined = try await test.store.quarantinedTests(bot: "app", limit: 50, results: 2)
        #expect(quarantined.map(\.name) == ["testRace"])
        #expect(quarantined.first?.runs.map(\.number) == [3, 2])
        #expect(quarantined.first?.runs.map(\.test.status) == [.failed, .passed])
        #expect(try await test.store.quarantinedTests(bot: "lib", limit: 50, results: 2).isEmpty)
    }
}
