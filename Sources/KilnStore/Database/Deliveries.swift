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

/// One of the outboxes (mail, commit statuses, reviews) and what tells it apart from the others;
/// the code that claims, orders, retries and records deliveries is `Deliveries`'s, once for all
/// three. A new output is a new `OutboxTable` over a table of its own with these columns:
/// `id`, `created_at`, `bot`, `next_attempt_at`, `attempts`, `last_error`, `response_code`,
/// `sent_at` and the state column.
struct OutboxTable: Sendable {
    let name: String
    /// What its deliveries are, for the store's error messages: "mails".
    let what: String
    /// The column that holds `queued`, `sent` or the word for given up.
    let stateColumn: String
    /// The word for a delivery given up for good: the remote refused it, or it failed for a day.
    let givenUp: String
    /// The columns whose equal values make a lane: a lane's deliveries go one at a time, in
    /// the order they were queued (a context's commit statuses, a pull request's reviews).
    /// Empty: every delivery goes on its own.
    let lane: [String]

    static let mail = OutboxTable(name: "outbox", what: "mails", stateColumn: "state", givenUp: "failed", lane: [])
    static let statuses = OutboxTable(
        name: "forge_status", what: "commit statuses", stateColumn: "delivery", givenUp: "refused", lane: ["sha", "context", "project"])
    static let reviews = OutboxTable(
        name: "forge_review", what: "reviews", stateColumn: "delivery", givenUp: "refused", lane: ["bot", "pull_request"])
}

/// The generic outbox: one table's deliveries claimed, ordered per lane, retried and recorded.
/// The mail, status and review stores each read and write their own table through one.
struct Deliveries<Engine: StoreEngine>: StoreRole {
    let engine: Engine
    let table: OutboxTable

    /// Claims the due deliveries of `table`, oldest first, each the first still queued in its
    /// lane; a claimed one is not due again for `MailClaim.duration`, so that of several hosts
    /// one delivers it. Rows another host is claiming are skipped, not waited for.
    func claimDue<Item: Sendable>(
        now: Date, limit: Int, as item: @escaping @Sendable (SQLRow) -> Item?
    ) async throws(StoreError) -> [(id: Int64, item: Item)] {
        let (name, state) = (table.name, table.stateColumn)
        let earlier =
            table.lane.isEmpty
            ? ""
            : """
             AND NOT EXISTS (
                    SELECT 1 FROM \(name) AS earlier
                    WHERE \(table.lane.map { "earlier.\($0) = due.\($0)" }.joined(separator: " AND "))
                        AND earlier.id < due.id AND earlier.\(state) = 'queued')
            """
        return try await write("claiming due \(table.what)") { db in
            try db.rows(
                """
                UPDATE \(name) SET next_attempt_at = ? WHERE id IN (
                    SELECT id FROM \(name) AS due WHERE \(state) = 'queued' AND next_attempt_at <= ?\(earlier)
                    ORDER BY next_attempt_at, id LIMIT ?\(db.dialect.lockSkippingLocked()))
                RETURNING *
                """, now.addingTimeInterval(MailClaim.duration), now, limit
            ).compactMap { row in item(row).map { (id: row["id"] as Int64, item: $0) } }.sorted { $0.id < $1.id }
        }
    }

    /// When the next queued delivery of `table` is due; nil when none is queued. A read, so that
    /// an idle round never waits behind the scheduler's writes.
    func nextAttempt() async throws(StoreError) -> Date? {
        try await readStatement("reading the \(table.what)") { db in
            try db.value("SELECT min(next_attempt_at) FROM \(table.name) WHERE \(table.stateColumn) = 'queued'")
        }
    }

    /// Records a delivery the remote took (`responseCode`: its answer's code, where it has one).
    func recordSent(id: Int64, responseCode: Int?, now: Date) async throws(StoreError) {
        try await write("recording delivered \(table.what)") { db in
            try db.execute(
                """
                UPDATE \(table.name) SET \(table.stateColumn) = 'sent', sent_at = ?, attempts = attempts + 1, last_error = NULL,
                    response_code = ? WHERE id = ?
                """, now, responseCode, id)
        }
    }

    /// Records a failed attempt, with the remote's words: tried again at `retryAt`, or given up
    /// for good when it is nil.
    func recordFailed(
        id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date
    ) async throws(StoreError) {
        try await write("recording a failed delivery of \(table.what)") { db in
            try db.execute(
                """
                UPDATE \(table.name) SET \(table.stateColumn) = ?, attempts = attempts + 1, last_error = ?, response_code = ?,
                    next_attempt_at = ?, sent_at = ?
                WHERE id = ?
                """, retryAt == nil ? table.givenUp : "queued", error, responseCode, retryAt ?? now, retryAt == nil ? now : nil, id)
        }
    }

    /// Per bot, the latest delivery given up, unless one of the bot's queued after it was
    /// delivered since.
    func problems() async throws(StoreError) -> [StatusProblem] {
        let (name, state) = (table.name, table.stateColumn)
        return try await read("reading refused \(table.what)") { db in
            try db.rows(
                """
                SELECT given_up.* FROM \(name) AS given_up
                WHERE given_up.id IN (SELECT max(id) FROM \(name) WHERE \(state) = ? GROUP BY bot)
                    AND NOT EXISTS (SELECT 1 FROM \(name) AS later WHERE later.\(state) = 'sent' AND later.bot = given_up.bot AND later.id > given_up.id)
                ORDER BY given_up.bot
                """, table.givenUp
            ).map { row in
                StatusProblem(
                    bot: row["bot"] ?? "", responseCode: row["response_code"], message: row["last_error"] ?? "refused",
                    at: row["sent_at"] ?? row["created_at"])
            }
        }
    }
}
