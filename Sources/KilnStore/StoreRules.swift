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

/// The rules every engine applies inside its transactions, written once in Swift so that no
/// engine's SQL carries them.
enum StoreRules {
    /// How long a host may stay gone before it is forgotten: long enough to see on the pages
    /// that it went, short enough that a retired or renamed host does not stay listed.
    static let forgetHostsAfter = Duration.seconds(24 * 3600)

    /// Whether `request` reaches `latest`, the bot's newest integration that left the queue,
    /// instead of queueing anew: a push of the commit the bot is integrating, or last integrated
    /// (a webhook and a poll seeing the same push, a forge redelivering). `kiln trigger` and
    /// schedules always integrate anew; an integration asked to stop, canceled or ended by a
    /// fault does not count.
    static func reaches(_ request: QueueRequest, latest: Integration, cancelRequested: Bool) -> Bool {
        guard request.cause == .webhook || request.cause == .poll, let commit = request.commit else { return false }
        return latest.commit == commit && !cancelRequested && latest.result != .canceled && latest.result != .internalError
    }

    /// A completion's summary and issues. `previous` is the predecessor that built
    /// (`Predecessor.built`) with its issues; `beforeFailedBuild`, when `previous` failed to
    /// build, the issues of the last integration before it that ran its tests: a failed build
    /// hid its warnings and ran no tests, so what was open before it still is.
    static func completion(
        _ outcome: IntegrationOutcome, previous: Integration?, previousIssues: [IntegrationIssue], beforeFailedBuild: [IntegrationIssue]
    ) -> (summary: Summary, issues: [IntegrationIssue]) {
        var previousIssues = previousIssues
        let known = Set(previousIssues.map(\.fingerprint))
        previousIssues += beforeFailedBuild.filter { $0.type != .error && $0.status != .resolved && !known.contains($0.fingerprint) }
        guard outcome.result.isBuilt else { return (outcome.summary, outcome.issues) }
        let types: Set<IssueType> = outcome.result == .buildErrors ? [.error] : Set(IssueType.allCases)
        return (
            outcome.summary.changed(from: previous?.summary),
            IntegrationIssue.statuses(current: outcome.issues, previous: previousIssues, known: types)
        )
    }

    /// The results whose integration ran its tests (`IntegrationResult.ranTests`): what
    /// `beforeFailedBuild` looks back to.
    static let testedResults = IntegrationResult.allCases.filter(\.ranTests)

    /// A fresh claim token.
    static func newToken() -> String {
        UUID().uuidString.lowercased()
    }

    /// Why a write carrying `claim` is refused, given the integration's row as it is now (its
    /// `step`, `claim_token` and `reason`; nil: the row is gone); nil when the claim holds.
    static func refusal(of claim: Claim, row: SQLRow?) -> StoreError? {
        guard let row, let step: IntegrationStep = row["step"] else { return .claimLost(id: claim.id, reason: "the integration is gone") }
        let reason: IntegrationReason? = row["reason"]
        if step == .completed { return .claimLost(id: claim.id, reason: "it was ended already\(reason.map { " (\($0.code))" } ?? "")") }
        if row["claim_token"] as String? != claim.token { return .claimLost(id: claim.id, reason: "it was claimed again since") }
        return nil
    }

    /// What the holder of `claim` must do now, given the integration's row (`refusal`'s columns
    /// and `cancel_requested`): stop because its claim was lost, stop because someone asked, or
    /// nothing (nil). An integration its holder completed (`complete` cleared its token) has
    /// nothing to stop: its executor is finishing.
    static func stopRequest(for claim: Claim, row: SQLRow?) -> CancelRequest? {
        if let row, (row["step"] as IntegrationStep?) == .completed, row.value("claim_token") == .null { return nil }
        if case .claimLost(_, let why) = refusal(of: claim, row: row) {
            return CancelRequest(id: claim.id, lost: why)
        }
        return row.flatMap { $0["cancel_requested"] as IntegrationReason? }.map { CancelRequest(id: claim.id, reason: $0) }
    }

    /// The request that queues a lost integration's commit again (once: a re-queued integration
    /// that is lost in turn is not queued a third time).
    static func requeue(_ integration: Integration) -> QueueRequest {
        QueueRequest(bot: integration.bot, cause: integration.cause, commit: integration.commit, branch: integration.branch, cancelSuperseded: false)
    }

    /// Retention expires integrations in batches of this many, so that the queue never waits
    /// long for a write.
    static let retentionBatch = 200
}
