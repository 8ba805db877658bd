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

/// The commit statuses' outbox, and what statuses are composed from. Like mail: each
/// integration's statuses are composed once across hosts (`queueStatuses` is a compare-and-set
/// on the stage last composed), and claimed before they are sent.
///
/// Threading and errors as `Store` says.
public protocol StatusOutbox: Sendable {
    /// Integrations of `bots` queued since `since` whose status lags: never composed, composed for
    /// an earlier stage, or for another commit. Oldest first.
    func integrationsAwaitingStatus(bots: [String], since: Date, limit: Int) async throws(StoreError) -> [StatusCandidate]

    /// Records that `candidate`'s status was composed up to `stage` for `commit`, and queues
    /// `statuses`, in one transaction; false (queueing nothing) when another process composed
    /// it meanwhile.
    @discardableResult
    func queueStatuses(
        _ statuses: [CommitStatus], for candidate: StatusCandidate, stage: StatusStage, commit: String, now: Date
    ) async throws(StoreError) -> Bool

    /// Claims due statuses, oldest first, none of which has an earlier status of the same
    /// commit and context still waiting: each forge hears a context's statuses in order. A
    /// claimed status is not due again for `MailClaim.duration`.
    func dueStatuses(now: Date, limit: Int) async throws(StoreError) -> [QueuedStatus]

    /// When the next queued status is due; nil when none is queued.
    func nextStatusAttempt() async throws(StoreError) -> Date?

    /// Records a status the forge took.
    func statusSent(_ id: Int64, responseCode: Int?, now: Date) async throws(StoreError)

    /// Records a failed attempt: tried again at `retryAt`, or refused for good when it is nil.
    func statusFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError)

    /// The statuses of the last `limit` attempts, newest first (for tests and `kiln status`).
    func statuses(limit: Int) async throws(StoreError) -> [QueuedStatus]

    /// Per bot, the latest refusal, unless a status of the bot queued after it was delivered since.
    func statusProblems() async throws(StoreError) -> [StatusProblem]
}
