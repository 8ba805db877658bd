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

@Suite("A bot's history filtered, its tests searched, its commits' subjects kept")
struct HistoryFilterTests {
    @Test(
        "By result, author (any case, any part, wildcards taken literally), branch and pull request; the subject and author of each integration's commit, an integration of a known commit too",
        arguments: Engine.allCases)
    func filterAndSearch(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        func commit(_ sha: String, _ author: String, _ subject: String) -> Commit {
            Commit(sha: sha, author: author, email: "\(sha)@example.com", date: test.at(0), subject: subject)
        }
        try await test.integrate(
            "app", outcome: IntegrationOutcome(result: .succeeded, commits: [commit("c1", "Alice Smith", "Add 100% of it")]), commit: "c1")
        let failing = TestCase(suite: "MathTests", name: "testAdds", status: .failed, duration: 0.1, message: "no")
        try await test.integrate(
            "app",
            outcome: IntegrationOutcome(
                result: .testFailures, tests: [failing, TestCase(suite: "Strings", name: "joins()", status: .passed, duration: 0.1)],
                commits: [commit("c2", "Bob_Builder", "Break it"), commit("c1b", "Carol", "Before")]), at: 20, commit: "c2")
        // The commit of #1 again (a re-run, a trigger on an unchanged branch): nothing new, the same subject.
        try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: 40, commit: "c1")
        try await test.execute("UPDATE integration SET pull_number = 7 WHERE bot = 'app' AND number = 2")

        let three = try #require(try await store.integration(bot: "app", number: 3)?.integration)
        #expect(three.subject == "Add 100% of it" && three.author == "Alice Smith", "\(three)")
        let two = try #require(try await store.integration(bot: "app", number: 2)?.integration)
        #expect(two.subject == "Break it" && two.author == "Bob_Builder", "the commit's own, not the range's first: \(two)")

        func numbers(_ filter: HistoryFilter, before: Int? = nil) async throws -> [Int] {
            try await store.integrations(bot: "app", matching: filter, limit: 10, before: before).map(\.number)
        }
        #expect(try await numbers(HistoryFilter()) == [3, 2, 1])
        #expect(try await numbers(HistoryFilter(result: .testFailures)) == [2])
        #expect(try await numbers(HistoryFilter(result: .succeeded), before: 3) == [1])
        #expect(try await numbers(HistoryFilter(author: "ALICE")) == [3, 1])
        #expect(try await numbers(HistoryFilter(author: "b_b")) == [2])
        #expect(try await numbers(HistoryFilter(author: "b%")) == [], "a % is a percent sign, not a wildcard")
        #expect(try await numbers(HistoryFilter(author: "o__")) == [], "an _ is an underscore, not a wildcard")
        #expect(try await numbers(HistoryFilter(branch: "main")) == [3, 2, 1])
        #expect(try await numbers(HistoryFilter(branch: "release")) == [])
        #expect(try await numbers(HistoryFilter(pullRequest: 7)) == [2])
        #expect(try await numbers(HistoryFilter(result: .succeeded, author: "alice", pullRequest: 7)) == [])

        #expect(try await store.tests(bot: "app", containing: "ADDS", limit: 10) == [TestName(suite: "MathTests", name: "testAdds")])
        #expect(try await store.tests(bot: "app", containing: "s", limit: 10).count == 2)
        #expect(try await store.tests(bot: "app", containing: "s", limit: 1) == [TestName(suite: "MathTests", name: "testAdds")])
        #expect(try await store.tests(bot: "app", containing: "%", limit: 10) == [])
        #expect(try await store.tests(bot: "other", containing: "adds", limit: 10) == [])
    }
}
