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
import Testing

@Suite("A pull request review's plan")
struct ReviewPlanTests {
    static func issue(_ fingerprint: String, line: Int?, status: IssueStatus = .new) -> IntegrationIssue {
        IntegrationIssue(type: .warning, message: "unused \(fingerprint)", file: "a.swift", line: line, fingerprint: fingerprint, status: status)
    }

    static func draft(_ issues: [IntegrationIssue], limit: Int = 25) -> ReviewDraft {
        let request = ReviewRequest(
            forge: .github, apiURL: "https://api.github.com", tokenFile: "/t", project: "team/app", pullRequest: 2, head: "h",
            changed: ChangedLines(lines: ["a.swift": [1, 2, 3]]), url: nil, limit: limit)
        return ReviewDraft.compose(request, bot: "app", number: 7, issues: issues)
    }

    @Test("New findings on changed lines are commented up to the limit, the others summarized; old ones are not; gone ones are resolved")
    func plan() {
        let draft = Self.draft(
            [
                Self.issue("on1", line: 1), Self.issue("on2", line: 2), Self.issue("on3", line: 3), Self.issue("off", line: 9),
                Self.issue("nowhere", line: nil), Self.issue("old", line: 1, status: .unresolved), Self.issue("gone", line: 2, status: .resolved),
            ], limit: 1)
        #expect(draft.onLines.map(\.fingerprint) == ["on1", "on2", "on3"] && draft.elsewhere.map(\.fingerprint) == ["off", "nowhere"])
        #expect(draft.open == ["on1", "on2", "on3", "off", "nowhere", "old"])
        let commented = [
            ReviewComment(fingerprint: "on2", id: "12", body: "b"), ReviewComment(fingerprint: "gone", id: "13", body: "b"),
            ReviewComment(fingerprint: "old", id: "14", body: "b"), ReviewComment(fingerprint: ReviewComment.summary, id: "15", body: "s"),
        ]
        let plan = ReviewPlan(draft, commented: commented)
        #expect(plan.comment.map(\.fingerprint) == ["on1"], "on2 has its comment; the limit is one")
        #expect(plan.summarized.map(\.fingerprint) == ["off", "nowhere", "on3"])
        #expect(plan.resolve.map(\.fingerprint) == ["gone"], "old is still open; the summary is never resolved")
    }

    @Test("A finding that comes back after its comment was resolved is commented again")
    func comesBack() {
        let resolved = ReviewComment(fingerprint: "on1", id: "12", body: "b", resolvedIn: "abc")
        let plan = ReviewPlan(Self.draft([Self.issue("on1", line: 1)]), commented: [resolved])
        #expect(plan.comment.map(\.fingerprint) == ["on1"] && plan.resolve.isEmpty)
    }
}
