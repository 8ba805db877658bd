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

/// A fork's pull request waiting for a member's approval (`pull-requests: {forks: approve}`): a
/// queued integration marked `awaiting_approval`, which no claim takes until a member approves
/// it (`approved_by` then says who).
extension QueueStore {
    public func approve(bot: String, number: Int, by approver: String, now: Date) async throws(StoreError) -> Integration? {
        try await write("approving integration \(number) of '\(bot)'", notify: .queue) { db in
            try db.rows(
                """
                UPDATE integration SET awaiting_approval = NULL, approved_by = ?
                WHERE bot = ? AND number = ? AND step = 'pending' AND awaiting_approval = 1 RETURNING *
                """, approver, bot, number
            ).first.map(Integration.init(row:))
        }
    }

    public func awaitingApproval(bots: [String]) async throws(StoreError) -> [Integration] {
        guard !bots.isEmpty else { return [] }
        return try await read("reading the integrations awaiting approval") { db in
            try db.rows(
                "SELECT * FROM integration WHERE bot IN (\(placeholders(bots.count))) AND step = 'pending' AND awaiting_approval = 1 ORDER BY id",
                bots
            ).map(Integration.init(row:))
        }
    }
}

extension Queueing {
    /// Whether `request` waits for a member's approval: it asks to, and no integration of its
    /// bot had its commit approved before (a re-delivered event, a pull request reopened).
    static func waitsForApproval(_ db: any SQLConnection, _ request: QueueRequest) throws -> Bool {
        guard request.awaitsApproval else { return false }
        guard let commit = request.commit else { return true }
        return try db.rows(
            "SELECT 1 AS approved FROM integration WHERE bot = ? AND commit_sha = ? AND approved_by IS NOT NULL LIMIT 1", request.bot, commit
        ).isEmpty
    }
}
