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

/// Pull request reviews to post and their comments (`ReviewOutbox`), over the generic `Deliveries`.
struct ReviewStore<Engine: StoreEngine>: ReviewOutbox, StoreRole {
    let engine: Engine
    var deliveries: Deliveries<Engine> { Deliveries(engine: engine, table: .reviews) }
}

extension ReviewStore {
    public func dueReviews(now: Date, limit: Int) async throws(StoreError) -> [QueuedReview] {
        try await deliveries.claimDue(now: now, limit: limit) { QueuedReview(row: $0) }.map(\.item)
    }

    public func nextReviewAttempt() async throws(StoreError) -> Date? {
        try await deliveries.nextAttempt()
    }

    public func reviewComments(bot: String, pullRequest: Int) async throws(StoreError) -> [ReviewComment] {
        try await read("reading a pull request's review comments") { db in
            try db.rows("SELECT * FROM review_comment WHERE bot = ? AND pull_request = ? ORDER BY created_at, fingerprint", bot, pullRequest).map {
                ReviewComment(
                    fingerprint: $0["fingerprint"], id: $0["forge_id"], discussion: $0["discussion"], body: $0["body"], resolvedIn: $0["resolved_in"])
            }
        }
    }

    public func recordReviewComments(_ comments: [ReviewComment], bot: String, pullRequest: Int) async throws(StoreError) {
        guard !comments.isEmpty else { return }
        let now = WallClock.system.now.timeIntervalSince1970
        try await write("recording review comments") { db in
            for comment in comments {
                try db.execute(
                    """
                    INSERT INTO review_comment (bot, pull_request, fingerprint, forge_id, discussion, body, resolved_in, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (bot, pull_request, fingerprint) DO UPDATE SET
                        forge_id = excluded.forge_id, discussion = excluded.discussion, body = excluded.body, resolved_in = excluded.resolved_in
                    """, bot, pullRequest, comment.fingerprint, comment.id, comment.discussion, comment.body, comment.resolvedIn, now)
            }
        }
    }

    public func recordReviewProgress(_ id: Int64, progress: String) async throws(StoreError) {
        try await write("recording a review's progress") { db in
            try db.execute("UPDATE forge_review SET progress = ? WHERE id = ?", progress, id)
        }
    }

    public func reviewSent(_ id: Int64, responseCode: Int?, now: Date) async throws(StoreError) {
        try await deliveries.recordSent(id: id, responseCode: responseCode, now: now)
    }

    public func reviewFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError) {
        try await deliveries.recordFailed(id: id, error: error, responseCode: responseCode, retryAt: retryAt, now: now)
    }

    public func reviews(limit: Int) async throws(StoreError) -> [QueuedReview] {
        try await read("reading the reviews") { db in
            try db.rows("SELECT * FROM forge_review ORDER BY id DESC LIMIT ?", limit).compactMap(QueuedReview.init(row:))
        }
    }
}

extension StoreRole {
    /// Queues `draft` within the completion's transaction.
    static func queueReview(_ db: any SQLConnection, _ draft: ReviewDraft, integration id: Int64, now: Date) throws {
        try db.execute(
            "INSERT INTO forge_review (created_at, bot, pull_request, integration_id, draft, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?)", now,
            draft.bot, draft.request.pullRequest, id, JSON.encode(draft), now)
    }
}

extension ReviewStore {
    public func reviewProblems() async throws(StoreError) -> [StatusProblem] {
        try await deliveries.problems()
    }
}

extension QueuedReview {
    /// Nil for a row whose draft this version cannot read.
    init?(row: SQLRow) {
        guard let draft = JSON.decode(ReviewDraft?.self, from: row["draft"], default: nil) else { return nil }
        self.init(
            id: row["id"], draft: draft, delivery: QueuedStatus.Delivery(rawValue: row["delivery"]) ?? .queued, attempts: row["attempts"],
            createdAt: row["created_at"], progress: row["progress"], lastError: row["last_error"], responseCode: row["response_code"])
    }
}
