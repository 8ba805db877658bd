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

@Suite("Store: pull requests and commit statuses")
struct PullRequestStoreTests {
    static func pull(_ number: Int, title: String = "Make it faster", fork: Bool = false) -> PullRequest {
        PullRequest(
            number: number, title: title, author: "alice", url: "https://forge.example/o/r/pull/\(number)", head: "feature-\(number)", base: "main",
            ref: "refs/pull/\(number)/head", fork: fork)
    }

    static func pushOf(_ commit: String) -> QueueRequest {
        QueueRequest(bot: "app", cause: .webhook, commit: commit, branch: "main")
    }

    static func headOf(_ number: Int, _ commit: String, title: String = "Make it faster") -> QueueRequest {
        QueueRequest(bot: "app", cause: .webhook, commit: commit, branch: "main", pullRequest: pull(number, title: title))
    }

    @Test(
        "A pull request queues apart from the branch and from other pull requests, and its new head supersedes only its own",
        arguments: Engine.allCases)
    func lanes(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let branch = try await store.enqueue(Self.pushOf("aaaa1111"), now: test.at(0))
        let pull = try await store.enqueue(Self.headOf(7, "bbbb1111"), now: test.at(1))
        #expect(!pull.coalesced && pull.integration.number == 2, "a pull request's head does not coalesce into the branch's queued integration")
        #expect(pull.integration.pullRequest == Self.pull(7))
        let other = try await store.enqueue(Self.headOf(8, "cccc1111"), now: test.at(2))
        #expect(!other.coalesced && other.integration.number == 3)
        let again = try await store.enqueue(Self.headOf(7, "bbbb2222", title: "Make it much faster"), now: test.at(3))
        #expect(again.coalesced && again.integration.number == 2 && again.integration.commit == "bbbb2222")
        #expect(again.integration.pullRequest?.title == "Make it much faster", "a coalesced request brings the pull request's new title")

        // #1 (the branch) runs first; once it ends, #2 (pull request 7) runs.
        let first = try #require(try await store.claimNext(owner: "host 1 a", now: test.at(4)))
        #expect(first.id == branch.integration.id)
        try await store.complete(first, outcome: IntegrationOutcome(result: .succeeded), now: test.at(5))
        let running = try #require(try await store.claimNext(owner: "host 1 a", now: test.at(6)))
        #expect(running.number == 2 && running.integration.pullRequest?.number == 7)

        // A push to the branch and another pull request's head leave it running; its own new head stops it.
        #expect(try await store.enqueue(Self.pushOf("aaaa2222"), now: test.at(7)).superseded.isEmpty)
        #expect(try await store.enqueue(Self.headOf(8, "cccc2222"), now: test.at(8)).superseded.isEmpty)
        let newer = try await store.enqueue(Self.headOf(7, "bbbb3333"), now: test.at(9))
        #expect(newer.superseded == [running.id] && !newer.coalesced)
        let stop = try await store.stopRequests(for: [running])
        #expect(stop.first?.reason == .superseded(commit: "bbbb3333"))

        // The branch's history is the branch's: a branch integration's predecessor skips pull requests.
        #expect(try await store.predecessor(.withCommit, bot: "app", before: nil)?.commit == "aaaa2222")
        let overview = try #require(try await store.botOverviews().first { $0.state.name == "app" })
        #expect(overview.last?.number == 1, "the bot's last result is the branch's")
    }

    @Test(
        "A fork's head awaiting approval is claimed by none until approved; its new commit waits again, one approved before does not",
        arguments: Engine.allCases)
    func approval(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        func head(_ commit: String) -> QueueRequest {
            var request = QueueRequest(bot: "app", cause: .webhook, commit: commit, branch: "main", pullRequest: Self.pull(5, fork: true))
            request.awaitsApproval = true
            return request
        }
        let waiting = try await store.enqueue(head("ffff1111"), now: test.at(0))
        #expect(waiting.integration.step == .awaitingApproval)
        #expect(try await store.claimNext(owner: "host 1 a", now: test.at(1)) == nil, "waiting for approval, it takes no executor")
        #expect(try await store.awaitingApproval(bots: ["app"]).map(\.number) == [1])
        // A new commit before anyone approved: the same integration, still waiting.
        let newer = try await store.enqueue(head("ffff2222"), now: test.at(2))
        #expect(newer.coalesced && newer.integration.step == .awaitingApproval && newer.integration.commit == "ffff2222")
        let approved = try await store.approve(bot: "app", number: 1, by: "alice", now: test.at(3))
        #expect(approved?.step == .pending && approved?.approvedBy == "alice")
        #expect(try await store.approve(bot: "app", number: 1, by: "alice", now: test.at(3)) == nil, "approved once")
        // Approved and still queued, its pull request gets a newer commit: it waits again.
        let again = try await store.enqueue(head("ffff3333"), now: test.at(4))
        #expect(again.coalesced && again.integration.step == .awaitingApproval && again.integration.approvedBy == nil)
        _ = try await store.approve(bot: "app", number: 1, by: "bob", now: test.at(5))
        let claim = try #require(try await store.claimNext(owner: "host 1 a", now: test.at(6)))
        #expect(claim.number == 1 && claim.integration.approvedBy == "bob")
        try await store.complete(claim, outcome: IntegrationOutcome(result: .succeeded), now: test.at(7))
        // A newer commit waits; pushed back to the commit approved before, it waits no more.
        let fourth = try await store.enqueue(head("ffff4444"), now: test.at(8))
        #expect(fourth.integration.number == 2 && fourth.integration.step == .awaitingApproval)
        let back = try await store.enqueue(head("ffff3333"), now: test.at(9))
        #expect(back.coalesced && back.integration.number == 2 && back.integration.step == .pending, "\(back)")
        #expect(try await store.awaitingApproval(bots: ["app"]).isEmpty)
        #expect(try await store.claimNext(owner: "host 1 a", now: test.at(10))?.number == 2)
    }

    @Test("Closing a pull request cancels its queued integration, stops its running one, and drops it from the open list", arguments: Engine.allCases)
    func closing(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        _ = try await store.enqueue(Self.headOf(3, "dddd1111"), now: test.at(0))
        let running = try #require(try await store.claimNext(owner: "host 1 a", now: test.at(1)))
        _ = try await store.enqueue(Self.headOf(4, "eeee1111"), now: test.at(2))
        var second = Self.headOf(3, "dddd2222")
        second.cancelSuperseded = false
        _ = try await store.enqueue(second, now: test.at(3))
        #expect(try await store.pullRequests(bot: "app", includeClosed: false).map(\.pullRequest.number).sorted() == [3, 4])

        let delivery = WebhookDelivery(forge: "github", event: "pull_request", outcome: .closed, statusCode: 200, receivedAt: test.at(4))
        let receipt = try await store.receiveWebhook(
            delivery, queue: [], close: [PullRequestClosing(bot: "app", number: 3, reason: .pullRequestClosed(number: 3, merged: false))],
            now: test.at(4))
        #expect(Set(receipt.stopped.map(\.number)) == [1, 3])
        let queued = try #require(try await store.integration(bot: "app", number: 3)).integration
        #expect(queued.result == .canceled && queued.reason == .pullRequestClosed(number: 3, merged: false) && queued.startedAt == nil)
        #expect(try await store.stopRequests(for: [running]).first?.reason == .pullRequestClosed(number: 3, merged: false))
        let open = try await store.pullRequests(bot: "app", includeClosed: false)
        #expect(open.map(\.pullRequest.number) == [4])
        #expect(open.first?.latest?.number == 2)
        #expect(try await store.pullRequests(bot: "app", includeClosed: true).count == 2)
        #expect(try await store.webhookDeliveries(limit: 1).first?.integrations.map(\.number).sorted() == [1, 3])
    }

    @Test(
        "A pull request's issues are new or unresolved against the branch's latest build, and the branch never compares with a pull request",
        arguments: Engine.allCases)
    func issuesAgainstTheBase(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let base = IntegrationIssue(type: .warning, message: "old", file: "a.swift", line: 1, fingerprint: "base")
        let added = IntegrationIssue(type: .warning, message: "new", file: "b.swift", line: 2, fingerprint: "added")
        try await test.integrate("app", outcome: IntegrationOutcome(result: .warnings, issues: [base]), commit: "aaaa1111")

        let queued = try await store.enqueue(Self.headOf(5, "bbbb1111"), now: test.at(10))
        let claim = try #require(try await store.claim(queued.integration.id, owner: "test", now: test.at(11)))
        let pull = try await store.complete(
            claim, outcome: IntegrationOutcome(result: .warnings, issues: [base, added]), now: test.at(12))
        #expect(pull.summary?.change(.warning) == 1)
        let pullIssues = try #require(try await store.integration(bot: "app", number: 2)).issues
        #expect(pullIssues.map(\.status) == [.unresolved, .new])

        // The branch's next integration compares with the branch's #1: "added" never was the branch's.
        try await test.integrate("app", outcome: IntegrationOutcome(result: .warnings, issues: [base]), at: 20, commit: "aaaa2222")
        let branch = try #require(try await store.integration(bot: "app", number: 3))
        #expect(branch.issues.map(\.fingerprint) == ["base"] && branch.issues.map(\.status) == [.unresolved])
        #expect(branch.integration.summary?.change(.warning) == 0)
    }

    static func status(_ state: CommitState, sha: String = String(repeating: "a", count: 40), integration: Int64?) -> CommitStatus {
        CommitStatus(
            bot: "app", integrationID: integration, kind: .github, apiURL: "http://127.0.0.1:1", project: "o/r", tokenFile: "/nonexistent", sha: sha,
            context: "kiln/app", state: state, description: state.rawValue, targetURL: "http://kiln/bots/app/integrations/1")
    }

    @Test(
        "Statuses are composed once per stage, delivered in order per commit and context, and a refusal stays shown until one gets through",
        arguments: Engine.allCases)
    func statusOutbox(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let queued = try await store.enqueue(Self.pushOf(String(repeating: "a", count: 40)), now: test.at(0))
        #expect(try await store.integrationsAwaitingStatus(bots: ["other"], since: test.at(-1), limit: 10).isEmpty)
        let candidates = try await store.integrationsAwaitingStatus(bots: ["app"], since: test.at(-1), limit: 10)
        let candidate = try #require(candidates.first)
        #expect(candidates.count == 1 && candidate.postedStage == nil)
        let id = queued.integration.id
        #expect(
            try await store.queueStatuses(
                [Self.status(.pending, integration: id)], for: candidate, stage: .queued, commit: candidate.integration.commit ?? "", now: test.at(1))
        )
        #expect(
            try await !store.queueStatuses([Self.status(.pending, integration: id)], for: candidate, stage: .queued, commit: "x", now: test.at(1)),
            "a second composer (another host) finds it composed and queues nothing")
        #expect(try await store.integrationsAwaitingStatus(bots: ["app"], since: test.at(-1), limit: 10).isEmpty)

        let claim = try #require(try await store.claimNext(owner: "host 1 a", now: test.at(2)))
        let started = try #require(try await store.integrationsAwaitingStatus(bots: ["app"], since: test.at(-1), limit: 10).first)
        #expect(started.postedStage == .queued)
        try await store.queueStatuses(
            [Self.status(.running, integration: id)], for: started, stage: .started, commit: claim.integration.commit ?? "", now: test.at(3))
        let other = Self.status(.pending, sha: String(repeating: "b", count: 40), integration: nil)

        // Of the two statuses of one commit and context, only the first is due; another commit's is not held up.
        try await store.queueLoose(other, test: test)
        let due = try await store.dueStatuses(now: test.at(4), limit: 10)
        #expect(due.map(\.status.state) == [.pending, .pending] && due.map(\.status.sha).sorted() == [String(repeating: "a", count: 40), other.sha])
        #expect(try await store.dueStatuses(now: test.at(4), limit: 10).isEmpty, "claimed statuses are not handed out twice")
        let first = try #require(due.first { $0.status.sha != other.sha })
        try await store.deliveryFailed(first.id, error: "connection refused", responseCode: nil, retryAt: test.at(10), now: test.at(4))
        #expect(try await store.dueStatuses(now: test.at(5), limit: 10).isEmpty, "the second waits while the first is retried")
        let retried = try await store.dueStatuses(now: test.at(10), limit: 10)
        #expect(retried.map(\.id) == [first.id] && retried.first?.attempts == 1)
        try await store.deliverySent(first.id, responseCode: 201, now: test.at(11))
        let second = try await store.dueStatuses(now: test.at(11), limit: 10)
        #expect(second.map(\.status.state) == [.running])

        try await store.deliveryFailed(second[0].id, error: "Bad credentials", responseCode: 401, retryAt: nil, now: test.at(12))
        let problems = try await store.statusProblems()
        #expect(problems.map(\.bot) == ["app"] && problems.first?.responseCode == 401 && problems.first?.message == "Bad credentials")
        let otherDue = try #require(due.first { $0.status.sha == other.sha })
        try await store.deliverySent(otherDue.id, responseCode: 201, now: test.at(13))
        #expect(try await store.statusProblems().isEmpty, "a status delivered after the refusal clears it")
        #expect(try await store.nextDeliveryAttempt(.status) == nil)
        #expect(try await store.statuses(limit: 10).map(\.delivery).sorted { $0.rawValue < $1.rawValue } == [.refused, .sent, .sent])
    }
}

extension Store {
    /// Queues a status for no integration, as a bare outbox entry.
    fileprivate func queueLoose(_ status: CommitStatus, test: TestStore) async throws {
        let queued = try await enqueue(QueueRequest(bot: "loose", cause: .webhook, commit: status.sha, branch: "main"), now: test.at(0))
        let candidate = StatusCandidate(integration: queued.integration, postedStage: nil, postedCommit: nil)
        try await queueStatuses([status], for: candidate, stage: .queued, commit: status.sha, now: test.at(3))
    }
}
