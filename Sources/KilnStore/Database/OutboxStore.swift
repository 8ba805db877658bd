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

/// The one outbox, for every kind of delivery (`Outboxes`).
struct OutboxStore<Engine: StoreEngine>: Outboxes, StoreRole {
    let engine: Engine

    func queueDelivery(_ delivery: NewDelivery, now: Date) async throws(StoreError) -> Bool {
        try await write("queueing a \(delivery.kind) delivery") { db in try Self.queue(db, delivery, now: now) }
    }

    func dueDeliveries(_ kind: OutboxKind, now: Date, limit: Int) async throws(StoreError) -> [StoredDelivery] {
        try await write("claiming due \(kind) deliveries") { db in
            try db.rows(
                """
                UPDATE delivery SET next_attempt_at = ? WHERE id IN (
                    SELECT id FROM delivery AS due WHERE kind = ? AND state = 'queued' AND next_attempt_at <= ? AND NOT EXISTS (
                        SELECT 1 FROM delivery AS earlier
                        WHERE earlier.kind = due.kind AND earlier.lane = due.lane AND earlier.id < due.id AND earlier.state = 'queued')
                    ORDER BY next_attempt_at, id LIMIT ?\(db.dialect.lockSkippingLocked()))
                RETURNING *
                """, now.addingTimeInterval(MailClaim.duration), kind.rawValue, now, limit
            ).map(StoredDelivery.init(row:)).sorted { $0.id < $1.id }
        }
    }

    /// A read, so that an idle round never waits behind the scheduler's writes.
    func nextDeliveryAttempt(_ kind: OutboxKind) async throws(StoreError) -> Date? {
        try await readStatement("reading the \(kind) deliveries") { db in
            try db.value("SELECT min(next_attempt_at) FROM delivery WHERE kind = ? AND state = 'queued'", kind.rawValue)
        }
    }

    func deliverySent(_ id: Int64, responseCode: Int?, now: Date) async throws(StoreError) {
        try await write("recording a delivery") { db in
            try db.execute(
                "UPDATE delivery SET state = 'sent', sent_at = ?, attempts = attempts + 1, last_error = NULL, response_code = ? WHERE id = ?", now,
                responseCode, id)
        }
    }

    func deliveryFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError) {
        let state: OutboxState = retryAt == nil ? .givenUp : .queued
        try await write("recording a failed delivery") { db in
            try db.execute(
                """
                UPDATE delivery SET state = ?, attempts = attempts + 1, last_error = ?, response_code = ?, next_attempt_at = ?, sent_at = ?
                WHERE id = ?
                """, state.rawValue, error, responseCode, retryAt ?? now, retryAt == nil ? now : nil, id)
        }
    }

    func recordDeliveryProgress(_ id: Int64, progress: String) async throws(StoreError) {
        try await write("recording a delivery's progress") { db in
            try db.execute("UPDATE delivery SET progress = ? WHERE id = ?", progress, id)
        }
    }

    func deliveries(_ kind: OutboxKind, undelivered: Bool, limit: Int) async throws(StoreError) -> [StoredDelivery] {
        try await read("reading the \(kind) deliveries") { db in
            try db.rows(
                "SELECT * FROM delivery WHERE kind = ?\(undelivered ? " AND state <> 'sent'" : "") ORDER BY id DESC LIMIT ?", kind.rawValue,
                max(0, limit)
            ).map(StoredDelivery.init(row:))
        }
    }

    func deliveryCounts(_ kind: OutboxKind) async throws(StoreError) -> [OutboxState: Int] {
        try await read("counting the \(kind) deliveries") { db in try Self.counts(db, of: kind) }
    }

    func deliveryProblems(_ kind: OutboxKind) async throws(StoreError) -> [StatusProblem] {
        try await read("reading refused \(kind) deliveries") { db in
            try db.rows(
                """
                SELECT given_up.* FROM delivery AS given_up
                WHERE given_up.id IN (SELECT max(id) FROM delivery WHERE kind = ? AND state = 'given-up' GROUP BY bot)
                    AND NOT EXISTS (
                        SELECT 1 FROM delivery AS later
                        WHERE later.kind = given_up.kind AND later.state = 'sent' AND later.bot = given_up.bot AND later.id > given_up.id)
                ORDER BY given_up.bot
                """, kind.rawValue
            ).map { row in
                StatusProblem(
                    bot: row["bot"] ?? "", responseCode: row["response_code"], message: row["last_error"] ?? "refused",
                    at: row["sent_at"] ?? row["created_at"])
            }
        }
    }
}

extension StoreRole {
    /// Queues `delivery` within the caller's transaction (a commit status with the stage it
    /// records, a review with its integration's completion); false when its dedupe key is taken.
    static func queue(_ db: any SQLConnection, _ delivery: NewDelivery, now: Date) throws -> Bool {
        try db.execute(
            """
            INSERT INTO delivery (kind, lane, dedupe_key, bot, integration_id, payload, body, created_at, next_attempt_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedupe_key) DO NOTHING
            """, delivery.kind.rawValue, delivery.lane, delivery.dedupeKey, delivery.bot, delivery.integrationID, delivery.payload, delivery.body,
            now, now) > 0
    }

    /// How many of `kind`'s deliveries are in each state.
    static func counts(_ db: any SQLConnection, of kind: OutboxKind) throws -> [OutboxState: Int] {
        var counts: [OutboxState: Int] = [:]
        for row in try db.rows("SELECT state, count(*) AS n FROM delivery WHERE kind = ? GROUP BY state", kind.rawValue) {
            if let state = OutboxState(rawValue: row["state"]) { counts[state] = row["n"] }
        }
        return counts
    }
}

extension StoredDelivery {
    init(row: SQLRow) {
        let queued = NewDelivery(
            kind: OutboxKind(row["kind"]), lane: row["lane"], dedupeKey: row["dedupe_key"], bot: row["bot"], integrationID: row["integration_id"],
            payload: row["payload"], body: row["body"])
        self.init(
            id: row["id"], queued: queued, state: OutboxState(rawValue: row["state"]) ?? .queued, attempts: row["attempts"],
            createdAt: row["created_at"], nextAttemptAt: row["next_attempt_at"], lastError: row["last_error"], responseCode: row["response_code"],
            progress: row["progress"])
    }
}
