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
import Testing

@testable import KilnStore

@Suite("The one outbox: what the three outboxes held, moved over")
struct OutboxMigrationTests {
    static func status(_ state: CommitState, sha: String) -> CommitStatus {
        CommitStatus(
            bot: "app", integrationID: nil, kind: .gitlab, apiURL: "http://127.0.0.1:1/api/v4", project: "team/app", tokenFile: "/etc/kiln/token",
            sha: sha, context: "kiln/app", state: state, description: "Build \(state.rawValue)", targetURL: nil)
    }

    @Test(
        "A store from before v26 keeps its mail (message bytes, states, dedupe keys), statuses (lanes, refusals) and reviews (progress)",
        arguments: Engine.allCases)
    func movedOver(engine: Engine) async throws {
        let test = try await Migrations.$stoppingBefore.withValue("v26: one outbox") { try await TestStore(engine) }
        // Not UTF-8: a message is kept as the bytes it was composed as.
        let message: [UInt8] = [0xFF, 0x00, 0x41, 0x0D, 0x0A]
        let mails: [(key: String, state: String, error: String?, code: Int?)] = [
            ("sent", "sent", nil, 250), ("bounced", "failed", "550 no such user", 550), ("waiting", "queued", "connection refused", nil),
        ]
        for (index, mail) in mails.enumerated() {
            try await test.execute(
                """
                INSERT INTO outbox (created_at, bot, dedupe_key, recipients, subject, message, state, attempts, next_attempt_at, last_error, response_code)
                VALUES (?, 'app', ?, '["ann@example.com","bob@example.com"]', ?, ?, ?, ?, ?, ?, ?)
                """, test.at(Double(index)), mail.key, "Subject \(mail.key)", message, mail.state, index, test.at(10), mail.error, mail.code)
        }
        let sha = String(repeating: "c", count: 40)
        let statuses = [
            Self.status(.pending, sha: sha), Self.status(.running, sha: sha), Self.status(.failure, sha: String(repeating: "d", count: 40)),
        ]
        for (status, delivery) in zip(statuses, ["queued", "queued", "refused"]) {
            try await test.execute(
                """
                INSERT INTO forge_status (created_at, bot, kind, api_url, project, token_file, sha, context, state, description, next_attempt_at,
                    delivery, last_error, response_code)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, test.at(1), status.bot, status.kind.rawValue, status.apiURL, status.project, status.tokenFile, status.sha, status.context,
                status.state.rawValue, status.description, test.at(2), delivery, delivery == "refused" ? "401 Unauthorized" : nil,
                delivery == "refused" ? 401 : nil)
        }
        let request = ReviewRequest(
            forge: .github, apiURL: "https://api.github.com", tokenFile: "/t", project: "team/app", pullRequest: 2, head: "h",
            changed: ChangedLines(lines: ["a.swift": [1, 2]]), url: nil, limit: 25)
        let draft = ReviewDraft.compose(
            request, bot: "app", number: 7,
            issues: [IntegrationIssue(type: .warning, message: "unused x", file: "a.swift", line: 1, fingerprint: "x", status: .new)])
        for progress in ["review 41", nil] {
            try await test.execute(
                "INSERT INTO forge_review (created_at, bot, pull_request, draft, progress, next_attempt_at) VALUES (?, 'app', 2, ?, ?, ?)",
                test.at(3), JSON.encode(draft), progress, test.at(3))
        }

        let store = try await test.another()

        let outbox = try await store.outbox(limit: 10)
        #expect(outbox.queued == 1 && outbox.sent == 1 && outbox.failed == 1, "\(outbox)")
        #expect(outbox.undelivered.map(\.dedupeKey) == ["waiting", "bounced"])
        #expect(outbox.undelivered.allSatisfy { $0.message == message && $0.recipients == ["ann@example.com", "bob@example.com"] })
        #expect(outbox.undelivered.map(\.subject) == ["Subject waiting", "Subject bounced"])
        let bounced = try #require(outbox.undelivered.last)
        #expect(bounced.lastError == "550 no such user" && bounced.responseCode == 550 && bounced.attempts == 1)
        let again = OutgoingMail(dedupeKey: "sent", recipients: ["ann@example.com"], subject: "again", message: [])
        #expect(try await store.queueMail(again, now: test.at(20)) == false, "a moved mail's dedupe key still holds")

        #expect(try await store.statuses(limit: 10).reversed().map(\.status) == statuses)
        #expect(try await store.statuses(limit: 10).map(\.delivery) == [.refused, .queued, .queued])
        let problems = try await store.statusProblems()
        #expect(problems.map(\.bot) == ["app"] && problems.first?.responseCode == 401 && problems.first?.message == "401 Unauthorized")
        let due = try await store.dueStatuses(now: test.at(5), limit: 10)
        #expect(due.map(\.status.state) == [.pending], "a moved lane still goes in order: \(due.map(\.status.state))")

        let reviews = try await store.reviews(limit: 10)
        #expect(reviews.map(\.draft) == [draft, draft] && reviews.map(\.progress) == [nil, "review 41"])
        let dueReviews = try await store.dueReviews(now: test.at(5), limit: 10)
        #expect(dueReviews.map(\.progress) == ["review 41"], "a pull request's reviews are one lane")
    }
}
