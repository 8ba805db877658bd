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

/// What a person is told of one integration, made once and rendered by both its page (the
/// heading and facts) and its report mail: the result and its tone, the reason's sentence, the
/// cause, the commit, how long it took, the figures, and what is new or failing. Stored
/// properties only: Mustache reads them by reflection.
public struct IntegrationReport: Sendable {
    public struct IssueLine: Sendable {
        /// The kind's label (`IssueType+Words`): "error", "test failure".
        public var type: String
        /// `file:line`, or the file alone; nil for an issue of no file.
        public var location: String?
        public var message: String
        /// For a matrix: the cells it was found in, "in default-debug-thread".
        public var cells: String?
    }

    public var bot: String
    public var number: Int
    /// The result's word; the step while it runs.
    public var result: String
    /// The CSS class that colours the result (`good`, `warn`, `bad`, `fault`, `neutral`); the word is always beside it.
    public var tone: String
    /// Why it ended as it did or is asked to stop (`IntegrationReason+Words`); nil when nothing needs saying.
    public var reason: String?
    public var cause: String
    /// The commit as `ShortHash` writes it; "not yet known" before the checkout.
    public var shortCommit: String
    /// How long it took, or has run so far.
    public var duration: String
    public var figures: SummaryFigures
    /// New issues (at most `listed`).
    public var newIssues: [IssueLine]
    public var hasNewIssues: Bool
    /// Failing tests, `Suite.name` (at most `listed`).
    public var failingTests: [String]
    public var hasFailingTests: Bool
    /// Tests that failed, then passed when run again: listed apart from failures.
    public var flakyTests: [String]
    public var hasFlakyTests: Bool

    /// How many issues and tests each list holds at most.
    public static let listed = 50

    public init(_ detail: IntegrationDetail, now: Date) {
        let integration = detail.integration
        bot = integration.bot
        number = integration.number
        result = integration.result?.rawValue ?? integration.step.rawValue
        tone = Self.tone(integration.result)
        reason = integration.reason?.sentence ?? Self.approval(of: integration)
        cause = integration.cause.rawValue
        shortCommit = integration.commit.map(ShortHash.text) ?? "not yet known"
        duration =
            integration.step == .completed
            ? DurationText.prose(integration.duration) : DurationText.prose(now.timeIntervalSince(integration.startedAt ?? now))
        figures = SummaryFigures(integration.summary)
        let new = detail.issues.filter { $0.status == .new }
        newIssues = new.prefix(Self.listed).map {
            IssueLine(type: $0.kindLabel, location: Self.location($0), message: $0.message, cells: $0.cellsText)
        }
        hasNewIssues = !new.isEmpty
        let failing = detail.tests.filter(\.counts)
        failingTests = failing.prefix(Self.listed).map { "\($0.suite).\($0.name)" }
        hasFailingTests = !failing.isEmpty
        let flaky = detail.tests.filter { $0.status == .flaky }
        flakyTests = flaky.prefix(Self.listed).map { "\($0.suite).\($0.name)" }
        hasFlakyTests = !flaky.isEmpty
    }

    /// What a fork's pull request under `forks: approve` waits for, or who let it run.
    public static func approval(of integration: Integration) -> String? {
        if integration.step == .awaitingApproval {
            let author = integration.pullRequest.map { " by \($0.author)" } ?? ""
            return "Waiting for a member's approval: a pull request from a fork\(author), who is not trusted here (pull-requests.trusted)"
        }
        return integration.approvedBy.map { "Approved by \($0)" }
    }

    /// The tone of `result` (nil: not ended).
    public static func tone(_ result: IntegrationResult?) -> String {
        switch result {
        case .succeeded: "good"
        case .analyzerWarnings, .warnings: "warn"
        case .testFailures, .buildErrors: "bad"
        case .checkoutError, .triggerError, .timeout, .internalError: "fault"
        case .canceled, nil: "neutral"
        }
    }

    /// Where an issue is: `file:line`, the file alone, or nil.
    public static func location(_ issue: IntegrationIssue) -> String? {
        issue.file.map { file in issue.line.map { "\(file):\($0)" } ?? file }
    }
}
