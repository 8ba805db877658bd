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

/// Commit statuses to post (`StatusOutbox`), over the generic `Deliveries`.
struct StatusStore<Engine: StoreEngine>: StatusOutbox, StoreRole {
    let engine: Engine
}

extension StatusStore {
    public func integrationsAwaitingStatus(bots: [String], since: Date, limit: Int) async throws(StoreError) -> [StatusCandidate] {
        guard !bots.isEmpty else { return [] }
        return try await read("reading integrations awaiting a commit status") { db in
            try db.rows(
                """
                SELECT * FROM integration
                WHERE bot IN (\(placeholders(bots.count))) AND queued_at >= ? AND commit_sha IS NOT NULL AND bisection_id IS NULL AND cell_of IS NULL
                    AND (status_stage IS DISTINCT FROM (CASE step WHEN 'pending' THEN (CASE WHEN awaiting_approval = 1 THEN 'awaiting' ELSE 'queued' END) WHEN 'completed' THEN 'completed'
                        ELSE (CASE WHEN progress_failed > 0 THEN 'failing' ELSE 'started' END) END)
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
            for status in statuses { _ = try Self.queue(db, status.outboxDelivery, now: now) }
            return true
        }
    }
}
