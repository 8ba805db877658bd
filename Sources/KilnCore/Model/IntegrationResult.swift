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

/// How a completed integration ended, in the order docs/bot-file.md lists them (Results).
///
/// The raw values are the public contract: they appear in bot files (`on:`), JSON and pages.
public enum IntegrationResult: String, CaseIterable, Codable, Sendable, Hashable {
    case succeeded
    /// Built and tested cleanly; only the `analyze` step found something.
    case analyzerWarnings = "analyzer-warnings"
    case warnings
    case testFailures = "test-failures"
    case buildErrors = "build-errors"
    case checkoutError = "checkout-error"
    case triggerError = "trigger-error"
    case timeout
    case canceled
    case internalError = "internal-error"

    /// Succeeded and warnings (of the compiler or the analyzer) count as passing (`kiln run`
    /// exits 0 for them; a report with `every: change` calls a move between passing and not
    /// "broken" or "fixed").
    public var isPassing: Bool { self == .succeeded || self == .analyzerWarnings || self == .warnings }

    /// Results of integrations that got as far as building: only their counts (errors, warnings,
    /// tests) mean something, so only they are compared with each other.
    public static let built: Set<IntegrationResult> = [.succeeded, .analyzerWarnings, .warnings, .testFailures, .buildErrors]

    public var isBuilt: Bool { Self.built.contains(self) }

    /// Whether the integration ran its tests: it built, and no error ranks it below them.
    public var ranTests: Bool { isBuilt && self != .buildErrors }

    /// The worst of `results` by that order (the order of the cases); succeeded for none.
    public static func worst(_ results: some Sequence<IntegrationResult>) -> IntegrationResult {
        let rank = { (result: IntegrationResult) in allCases.firstIndex(of: result) ?? 0 }
        return results.max { rank($0) < rank($1) } ?? .succeeded
    }
}

/// Which earlier integration of the same bot something is compared with: each rule is named here
/// once, and `Store.predecessor` finds it.
public enum Predecessor: Sendable, Hashable {
    /// The newest that names a commit, in any step: the head a poll compares the remote with.
    case withCommit
    /// The newest completed one that built (`IntegrationResult.built`) and kept its details:
    /// summary changes, issue statuses and carried warnings are against it, and a new
    /// integration's commit range (who may be blamed) starts at its commit.
    case built
    /// The newest completed one that was not canceled: whether a bot broke or was fixed.
    case ended

}

/// Where an integration is in its life.
public enum IntegrationStep: String, CaseIterable, Codable, Sendable, Hashable {
    /// Queued, a fork's pull request waiting for a member's approval before it may start
    /// (`pull-requests: {forks: approve}`). The store keeps it as `pending` with a mark, so that
    /// every rule about queued work holds for it; only the claim passes it by.
    case awaitingApproval = "awaiting-approval"
    case pending
    case checkout
    case beforeTriggers = "before-triggers"
    case building
    case testing
    /// The `analyze` step: `swift format lint`.
    case analyzing
    /// The `archive` step: the products built in release configuration and packed.
    case archiving
    case processing
    case afterTriggers = "after-triggers"
    case completed
}

/// Why an integration was queued.
public enum IntegrationCause: String, CaseIterable, Codable, Sendable, Hashable {
    case webhook
    case poll
    case periodic
    case manual
    /// A commit inside another integration's range, integrated on idle executors to find the
    /// one that broke it (`Bisection`); never part of the branch's history.
    case bisect
    /// A member ran an earlier integration again (`Rerun`): its commit, whole or only what failed.
    case rerun
}
