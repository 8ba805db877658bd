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

/// The one outbox (the `delivery` table): mail, commit statuses and reviews, and any output added
/// later, by `OutboxKind`. One delivery loop (`OutboxDelivery` in KilnServer) works it for every
/// kind: a delivery is claimed before it is attempted, so that of several hosts one attempts it;
/// a lane's deliveries go one at a time, in order; a failure is tried again with backoff; a
/// refusal is kept with the remote's words.
///
/// Threading and errors as `Store` says.
public protocol Outboxes: Sendable {
    /// Queues `delivery` unless one with its dedupe key is there already; true when queued.
    @discardableResult
    func queueDelivery(_ delivery: NewDelivery, now: Date) async throws(StoreError) -> Bool

    /// Claims `kind`'s due deliveries, oldest first, each the first still queued in its lane; a
    /// claimed one is not due again for `MailClaim.duration`. Rows another host is claiming are
    /// skipped, not waited for.
    func dueDeliveries(_ kind: OutboxKind, now: Date, limit: Int) async throws(StoreError) -> [StoredDelivery]

    /// When `kind`'s next queued delivery is due; nil when none is queued.
    func nextDeliveryAttempt(_ kind: OutboxKind) async throws(StoreError) -> Date?

    /// Records a delivery the remote took (`responseCode`: its answer's code, where it has one).
    func deliverySent(_ id: Int64, responseCode: Int?, now: Date) async throws(StoreError)

    /// Records a failed attempt with the remote's words: tried again at `retryAt`, or given up
    /// for good when it is nil.
    func deliveryFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError)

    /// Records how far an attempt got (a review's id at the forge), so that the next attempt
    /// does not repeat it.
    func recordDeliveryProgress(_ id: Int64, progress: String) async throws(StoreError)

    /// `kind`'s last `limit` deliveries, newest first; only those not sent when `undelivered`.
    func deliveries(_ kind: OutboxKind, undelivered: Bool, limit: Int) async throws(StoreError) -> [StoredDelivery]

    /// How many of `kind`'s deliveries are in each state.
    func deliveryCounts(_ kind: OutboxKind) async throws(StoreError) -> [OutboxState: Int]

    /// Per bot, `kind`'s latest delivery given up, unless one of the bot's queued after it was
    /// delivered since.
    func deliveryProblems(_ kind: OutboxKind) async throws(StoreError) -> [StatusProblem]
}

/// Each output's items, read as their own types.
extension Outboxes {
    /// Queues `mail` unless one with its dedupe key is there already; true when queued.
    @discardableResult
    public func queueMail(_ mail: OutgoingMail, now: Date) async throws(StoreError) -> Bool {
        try await queueDelivery(mail.outboxDelivery, now: now)
    }

    /// The mail outbox for `kiln status`: counts by state and the mails not delivered yet.
    public func outbox(limit: Int) async throws(StoreError) -> Outbox {
        var counts: [QueuedMail.State: Int] = [:]
        for (state, count) in try await deliveryCounts(.mail) { counts[QueuedMail.State(state), default: 0] += count }
        let undelivered = try await deliveries(.mail, undelivered: true, limit: limit).compactMap(QueuedMail.init)
        return Outbox(queued: counts[.queued] ?? 0, sent: counts[.sent] ?? 0, failed: counts[.failed] ?? 0, undelivered: undelivered)
    }

    /// The last `limit` commit statuses, newest first (for tests and `kiln status`).
    public func statuses(limit: Int) async throws(StoreError) -> [QueuedStatus] {
        try await deliveries(.status, undelivered: false, limit: limit).compactMap(QueuedStatus.init)
    }

    /// The last `limit` reviews, newest first (for tests and `kiln status`).
    public func reviews(limit: Int) async throws(StoreError) -> [QueuedReview] {
        try await deliveries(.review, undelivered: false, limit: limit).compactMap(QueuedReview.init)
    }

    /// Per bot, the latest refused commit status, unless a later one was delivered since.
    public func statusProblems() async throws(StoreError) -> [StatusProblem] { try await deliveryProblems(.status) }

    /// Per bot, the latest refused review, unless a later one was delivered since.
    public func reviewProblems() async throws(StoreError) -> [StatusProblem] { try await deliveryProblems(.review) }
}
