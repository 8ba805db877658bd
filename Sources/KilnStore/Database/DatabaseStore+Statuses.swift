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

extension DatabaseStore {
    public func integrationsAwaitingStatus(bots: [String], since: Date, limit: Int) async throws(StoreError) -> [StatusCandidate] {
        guard !bots.isEmpty else { return [] }
        return try await read("reading integrations awaiting a commit status") { db in
            try db.rows(
                """
                SELECT * FROM integration
                WHERE bot IN (\(placeholders(bots.count))) AND queued_at >= ? AND commit_sha IS NOT NULL AND bisection_id IS NULL AND cell_of IS NULL
                    AND (status_stage IS DISTINCT FROM (CASE step WHEN 'pending' THEN 'queued' WHEN 'completed' THEN 'completed' ELSE 'started' END)
                        OR status_commit IS DISTINCT FROM commit_sha)
                ORDER BY id LIMIT ?
                """, bots + [since, limit]
            ).map { row in
                StatusCandidate(
                    integration: Integration(row: row), postedStage: (row["status_stage"] as String?).flatMap(StatusStage.init(rawValue:)),
                    postedCommit: row["status_commit"])
            }
        }
    }

    public func queueStatuses(
        _ statuses: [CommitStatus], for candidate: StatusCandidate, stage: StatusStage, commit: String, now: Date
    ) async throws(StoreError) -> Bool {
        try await write("queueing commit statuses") { db in
            let composed = try db.execute(
                """
                UPDATE integration SET status_stage = ?, status_commit = ?
                WHERE id = ? AND status_stage IS NOT DISTINCT FROM ? AND status_commit IS NOT DISTINCT FROM ?
                """, stage.rawValue, commit, candidate.integration.id, candidate.postedStage?.rawValue, candidate.postedCommit)
            guard composed > 0 else { return false }
            for status in statuses {
                try db.execute(
                    """
                    INSERT INTO forge_status (
                        created_at, bot, integration_id, kind, api_url, project, token_file, sha, context, state, description, target_url, next_attempt_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, now, status.bot, status.integrationID, status.kind.rawValue, status.apiURL, status.project, status.tokenFile,
                    status.sha, status.context, status.state.rawValue, status.description, status.targetURL, now)
            }
            return true
        }
    }

    public func dueStatuses(now: Date, limit: Int) async throws(StoreError) -> [QueuedStatus] {
        // Rows another host is claiming are skipped, not waited for: each status goes to one host.
        try await write("claiming due commit statuses") { db in
            try db.rows(
                """
                UPDATE forge_status SET next_attempt_at = ? WHERE id IN (
                    SELECT id FROM forge_status AS due WHERE delivery = 'queued' AND next_attempt_at <= ? AND NOT EXISTS (
                        SELECT 1 FROM forge_status AS earlier
                        WHERE earlier.sha = due.sha AND earlier.context = due.context AND earlier.id < due.id
                            AND earlier.project = due.project AND earlier.delivery = 'queued')
                    ORDER BY next_attempt_at, id LIMIT ?\(db.dialect.lockSkippingLocked()))
                RETURNING *
                """, now.addingTimeInterval(MailClaim.duration), now, limit
            ).map(QueuedStatus.init(row:)).sorted { $0.id < $1.id }
        }
    }

    public func nextStatusAttempt() async throws(StoreError) -> Date? {
        try await readStatement("reading the commit statuses") { db in
            try db.value("SELECT min(next_attempt_at) FROM forge_status WHERE delivery = 'queued'")
        }
    }

    public func statusSent(_ id: Int64, responseCode: Int, now: Date) async throws(StoreError) {
        try await write("recording a delivered commit status") { db in
            try Self.sent(db, in: "forge_status", id: id, responseCode: responseCode, now: now)
        }
    }

    public func statusFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError) {
        try await write("recording a failed commit status") { db in
            try Self.failed(db, in: "forge_status", id: id, error: error, responseCode: responseCode, retryAt: retryAt, now: now)
        }
    }

    public func statuses(limit: Int) async throws(StoreError) -> [QueuedStatus] {
        try await read("reading the commit statuses") { db in
            try db.rows("SELECT * FROM forge_status ORDER BY id DESC LIMIT ?", max(0, limit)).map(QueuedStatus.init(row:))
        }
    }

    public func statusProblems() async throws(StoreError) -> [StatusProblem] {
        try await read("reading refused commit statuses") { db in try Self.problems(db, in: "forge_status") }
    }

    // What the statuses' and the reviews' outboxes share (`forge_status`, `forge_review`).

    /// Records a delivery the forge took.
    static func sent(_ db: any SQLConnection, in table: String, id: Int64, responseCode: Int, now: Date) throws {
        try db.execute(
            "UPDATE \(table) SET delivery = 'sent', sent_at = ?, attempts = attempts + 1, last_error = NULL, response_code = ? WHERE id = ?", now,
            responseCode, id)
    }

    /// Records a failed attempt: tried again at `retryAt`, or refused for good when it is nil.
    static func failed(
        _ db: any SQLConnection, in table: String, id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date
    ) throws {
        try db.execute(
            """
            UPDATE \(table) SET delivery = ?, attempts = attempts + 1, last_error = ?, response_code = ?, next_attempt_at = ?, sent_at = ?
            WHERE id = ?
            """, (retryAt == nil ? QueuedStatus.Delivery.refused : .queued).rawValue, error, responseCode, retryAt ?? now,
            retryAt == nil ? now : nil, id)
    }

    /// Per bot, the latest refusal, unless a delivery of the bot queued after it was taken since.
    static func problems(_ db: any SQLConnection, in table: String) throws -> [StatusProblem] {
        try db.rows(
            """
            SELECT refused.* FROM \(table) AS refused
            WHERE refused.id IN (SELECT max(id) FROM \(table) WHERE delivery = 'refused' GROUP BY bot)
                AND NOT EXISTS (SELECT 1 FROM \(table) AS later WHERE later.delivery = 'sent' AND later.bot = refused.bot AND later.id > refused.id)
            ORDER BY refused.bot
            """
        ).map { row in
            StatusProblem(
                bot: row["bot"], responseCode: row["response_code"], message: row["last_error"] ?? "refused", at: row["sent_at"] ?? row["created_at"])
        }
    }
}
