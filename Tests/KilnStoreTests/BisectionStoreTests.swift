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

@Suite("Store: bisection")
struct BisectionStoreTests {
    static let authors = ["alice", "bob", "carol", "dave"]

    /// Eight commits, oldest first, by four authors in turn.
    static let range = (1...8).map { index in
        let author = authors[(index - 1) % 4]
        return Commit(
            sha: "c\(index)", author: author.capitalized, email: "\(author)@example.com", date: Date(timeIntervalSince1970: 0), subject: "\(index)")
    }

    /// A test failure of c8 that blame laid on all four authors.
    static let failure = IntegrationIssue(
        type: .testFailure, message: "S.t: broken", fingerprint: "t",
        introducedBy: authors.map { Committer(name: $0.capitalized, email: "\($0)@example.com", commit: "c8") })

    @Test(
        "A failure of eight commits is bisected on idle executors after branch work, out of the branch's history, to the one commit",
        arguments: Engine.allCases)
    func bisect(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), commit: "c0")
        let failure = Self.failure
        let request = BisectRequest(maxIntegrations: 8)
        let broken = try await test.integrate(
            "app",
            outcome: {
                var outcome = IntegrationOutcome(result: .testFailures, issues: [failure], commits: Self.range.reversed())
                outcome.bisect = request
                return outcome
            }(), at: 100, commit: "c8")
        var bisection = try #require(try await store.bisection(of: broken.id))
        #expect(bisection.state == .running && bisection.integrations == [3])
        let byID = try #require(try await store.bisection(id: bisection.id))
        #expect(byID.bisection == bisection && byID.bisected == broken.number, "a bisect integration finds the integration it bisects")

        // Branch work queued later still goes first; the bisect integration waits for it.
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "c9", branch: "main"), now: test.at(200))
        let branch = try #require(try await store.claimNext(owner: "h", now: test.at(201)))
        #expect(branch.integration.cause == .manual)
        try await store.complete(branch, outcome: IntegrationOutcome(result: .testFailures, issues: [failure]), now: test.at(202))

        // Each bisect integration shows the failure from c5 on.
        var probes = 0
        while let claim = try await store.claimNext(owner: "h", now: test.at(300)) {
            probes += 1
            #expect(claim.integration.cause == .bisect && claim.integration.bisectionID == bisection.id)
            let index = Int(claim.integration.commit?.dropFirst() ?? "") ?? 0
            var outcome = IntegrationOutcome(result: index >= 5 ? .testFailures : .succeeded, issues: index >= 5 ? [failure] : [])
            outcome.bisect = request
            try await store.complete(claim, outcome: outcome, now: test.at(301))
        }
        bisection = try #require(try await store.bisection(of: broken.id))
        #expect(bisection.state == .found && bisection.culprit == "c5")
        #expect(probes == 3 && bisection.integrations.count == 3)
        let detail = try #require(try await store.integration(bot: "app", number: broken.number))
        #expect(detail.issues.first?.introducedBy == [Committer(name: "Alice", email: "alice@example.com", commit: "c5", bisected: true)])

        // The bisect integrations are no part of the branch's history, its last result or its mail.
        let history = try await store.integrations(bot: "app", limit: 50, before: nil)
        #expect(history.allSatisfy { $0.cause != .bisect } && history.count == 3)
        #expect(try await store.botOverviews().first?.last?.cause == .manual)
        #expect(try await store.integrationsToNotify(limit: 50).allSatisfy { $0.cause != .bisect })
        #expect(try await store.predecessor(.built, bot: "app", before: nil)?.cause == .manual)
    }

    @Test(
        "With executors idle on a live host, a round integrates several commits at once, each in a workspace of its own, and branch work waits for them",
        arguments: Engine.allCases)
    func severalAtOnce(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), commit: "c0")
        try await store.heartbeat(HostReport(name: "build-1", version: "1", executors: 3, busy: 0, botsDigest: "", lease: .seconds(600)))
        let failure = Self.failure
        let request = BisectRequest(maxIntegrations: 8)
        var outcome = IntegrationOutcome(result: .testFailures, issues: [failure], commits: Self.range.reversed())
        outcome.bisect = request
        let broken = try await test.integrate("app", outcome: outcome, at: 100, commit: "c8")
        /// Completes `claim` as its commit shows: the failure from c5 on.
        func complete(_ claim: Claim) async throws {
            let index = Int(claim.integration.commit?.dropFirst() ?? "") ?? 0
            var outcome = IntegrationOutcome(result: index >= 5 ? .testFailures : .succeeded, issues: index >= 5 ? [failure] : [])
            outcome.bisect = request
            try await store.complete(claim, outcome: outcome, now: test.at(400))
        }

        // Three executors idle: three commits of the seven at once, in the bot's workspace and two others.
        var round: [Claim] = []
        while let claim = try await store.claimNext(owner: "build-1 1 1", now: test.at(200)) { round.append(claim) }
        #expect(round.map { $0.integration.commit ?? "" } == ["c2", "c4", "c6"])
        #expect(round.map { $0.integration.workspaceSlot ?? -1 } == [0, 1, 2])
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "c9", branch: "main"), now: test.at(201))
        #expect(try await store.claimNext(owner: "build-1 1 1", now: test.at(202)) == nil, "the branch waits for the bisect integrations")
        for claim in round { try await complete(claim) }

        // The branch first; then the one commit left, alone, in the bot's own workspace.
        let branch = try #require(try await store.claimNext(owner: "build-1 1 1", now: test.at(500)))
        #expect(branch.integration.cause == .manual && branch.integration.workspaceSlot == nil)
        try await store.complete(branch, outcome: IntegrationOutcome(result: .testFailures, issues: [failure]), now: test.at(501))
        let last = try #require(try await store.claimNext(owner: "build-1 1 1", now: test.at(600)))
        #expect(last.integration.commit == "c5" && last.integration.workspaceSlot == 0)
        try await complete(last)
        let bisection = try #require(try await store.bisection(of: broken.id))
        #expect(bisection.state == .found && bisection.culprit == "c5" && bisection.integrations.count == 4, "\(bisection)")
    }

    @Test("No bisection for one commit, for failures pinned on one committer, without a request, or of a fork", arguments: Engine.allCases)
    func notNeeded(engine: Engine) async throws {
        let test = try await TestStore(engine)
        try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), commit: "c0")
        let everyone = IntegrationIssue(
            type: .testFailure, message: "S.t: broken", fingerprint: "t",
            introducedBy: Self.authors.map { Committer(name: $0, email: "\($0)@example.com", commit: "c8") })
        var pinned = everyone
        pinned.introducedBy = [Committer(name: "carol", email: "carol@example.com", commit: "c3")]
        let cases: [(IntegrationIssue, [Commit], BisectRequest?)] = [
            (everyone, [Self.range[7]], BisectRequest(maxIntegrations: 8)),
            (pinned, Self.range.reversed(), BisectRequest(maxIntegrations: 8)),
            (everyone, Self.range.reversed(), nil),
        ]
        for (index, (issue, commits, request)) in cases.enumerated() {
            var outcome = IntegrationOutcome(result: .testFailures, issues: [issue], commits: commits)
            outcome.bisect = request
            // Each after a success, so that its failure is new.
            try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: Double(index * 100), commit: "c0")
            let integration = try await test.integrate("app", outcome: outcome, at: Double(index * 100 + 50), commit: "c8")
            #expect(try await test.store.bisection(of: integration.id) == nil, "case \(index)")
        }

        // A fork's pull request: its bisect integrations would run as the branch's, with secrets.
        let fork = PullRequestStoreTests.pull(7, fork: true)
        try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: 900, commit: "c0")
        _ = try await test.store.enqueue(
            QueueRequest(bot: "app", cause: .webhook, commit: "c8", branch: "main", pullRequest: fork), now: test.at(1000))
        let claim = try #require(try await test.store.claimNext(owner: "h", now: test.at(1001)))
        var outcome = IntegrationOutcome(result: .testFailures, issues: [everyone], commits: Self.range.reversed())
        outcome.bisect = BisectRequest(maxIntegrations: 8)
        try await test.store.complete(claim, outcome: outcome, now: test.at(1002))
        #expect(claim.integration.pullRequest?.fork == true)
        #expect(try await test.store.bisection(of: claim.id) == nil, "a fork's failure is not bisected")
    }
}
