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

/// The pull request reviews' outbox (`forge.review`). A review is composed once, in the
/// transaction that completes its integration (`IntegrationOutcome.review`), so none is lost to a
/// restart; delivered by one host (claimed like statuses), a pull request's reviews in order;
/// and the comments it left are kept, so that the next push comments only what is new and
/// resolves what went away.
///
/// Threading and errors as `Store` says.
public protocol ReviewOutbox: Sendable {
    /// Claims due reviews, oldest first, none of which has an earlier review of the same pull
    /// request still waiting. A claimed review is not due again for `MailClaim.duration`.
    func dueReviews(now: Date, limit: Int) async throws(StoreError) -> [QueuedReview]

    /// When the next queued review is due; nil when none is queued.
    func nextReviewAttempt() async throws(StoreError) -> Date?

    /// The comments Kiln left on a pull request, its summary's among them.
    func reviewComments(bot: String, pullRequest: Int) async throws(StoreError) -> [ReviewComment]

    /// Records comments the forge now has (or changed), by fingerprint.
    func recordReviewComments(_ comments: [ReviewComment], bot: String, pullRequest: Int) async throws(StoreError)

    /// Records how far a delivery got (the forge's review id, posted before its comments were
    /// read back), so that another attempt does not post it twice.
    func recordReviewProgress(_ id: Int64, progress: String) async throws(StoreError)

    /// Records a review the forge has whole.
    func reviewSent(_ id: Int64, responseCode: Int?, now: Date) async throws(StoreError)

    /// Records a failed attempt: tried again at `retryAt`, or refused for good when it is nil.
    func reviewFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError)

    /// The last `limit` reviews, newest first (for tests and `kiln status`).
    func reviews(limit: Int) async throws(StoreError) -> [QueuedReview]

    /// Per bot, the latest refused review, unless one of the bot's queued after it was delivered since.
    func reviewProblems() async throws(StoreError) -> [StatusProblem]
}
