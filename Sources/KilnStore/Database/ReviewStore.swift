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
}

extension ReviewStore {
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
}

extension StoreRole {
    /// Queues `draft` within the completion's transaction.
    static func queueReview(_ db: any SQLConnection, _ draft: ReviewDraft, integration id: Int64, now: Date) throws {
        _ = try queue(db, draft.outboxDelivery(integration: id), now: now)
    }
}
