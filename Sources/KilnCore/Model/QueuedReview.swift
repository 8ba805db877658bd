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

/// A review in the outbox.
public struct QueuedReview: Sendable, Hashable {
    public var id: Int64
    public var draft: ReviewDraft
    public var delivery: QueuedStatus.Delivery
    public var attempts: Int
    public var createdAt: Date
    /// How far an earlier attempt got: the forge's id of the review it posted.
    public var progress: String?
    public var lastError: String?
    public var responseCode: Int?

    public init(
        id: Int64, draft: ReviewDraft, delivery: QueuedStatus.Delivery, attempts: Int, createdAt: Date, progress: String? = nil,
        lastError: String? = nil, responseCode: Int? = nil
    ) {
        self.id = id
        self.draft = draft
        self.delivery = delivery
        self.attempts = attempts
        self.createdAt = createdAt
        self.progress = progress
        self.lastError = lastError
        self.responseCode = responseCode
    }
}

extension ReviewDraft {
    /// The review as the outbox keeps it: a pull request's reviews go in order.
    public func outboxDelivery(integration id: Int64) -> NewDelivery {
        NewDelivery(kind: .review, lane: "\(bot) \(request.pullRequest)", bot: bot, integrationID: id, item: self)
    }
}

extension QueuedReview {
    /// Nil for a delivery that is no review, or one this version cannot read.
    public init?(_ stored: StoredDelivery) {
        guard stored.kind == .review, let draft = stored.item(ReviewDraft.self) else { return nil }
        self.init(
            id: stored.id, draft: draft, delivery: QueuedStatus.Delivery(stored.state), attempts: stored.attempts, createdAt: stored.createdAt,
            progress: stored.progress, lastError: stored.lastError, responseCode: stored.responseCode)
    }
}
