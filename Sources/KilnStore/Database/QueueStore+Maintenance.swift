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
import KilnPresentation

extension QueueStore {
    public func recoverAbandoned(isAlive: @Sendable (String) -> Bool, now: Date) async throws(StoreError) -> [Integration] {
        let running = try await read("reading running integrations") { db in
            try db.rows("SELECT * FROM integration WHERE step NOT IN ('pending', 'completed') AND step <> 'completed'").map(Claim.init(row:))
        }
        var recovered: [Integration] = []
        let logsInDatabase = engine.logsInDatabase
        for claim in running where !isAlive(claim.owner ?? "") {
            let reason = IntegrationReason.abandoned(owner: claim.owner.flatMap { $0.isEmpty ? nil : $0 }, step: claim.step)
            // The reason goes to the log with the ending, or the ending waits: an integration
            // never ends as internal-error with nothing in its log to say why.
            if !logsInDatabase, let log = logLocation(bot: claim.bot, number: claim.number) {
                try LogFiles.append(LogFiles.note(reason.sentence), to: log)
            }
            do {
                let outcome = IntegrationOutcome(result: .internalError, reason: reason)
                recovered.append(
                    try await write("ending an abandoned integration", notify: .stop) { db in
                        if logsInDatabase { try Self.appendNote(db, reason.sentence, to: claim.integration.id) }
                        // Its queued cells end with it; its running ones are abandoned too, or
                        // their own process ends them.
                        try Self.endCells(db, bot: claim.bot, number: claim.number, lacking: nil, reason: reason, now: now)
                        return try Self.complete(db, claim, outcome: outcome, now: now)
                    })
            } catch .claimLost {
                continue  // ended meanwhile by its own process or another host
            }
        }
        return recovered
    }

    public func applyRetention(keep: Int, bot: String?) async throws(StoreError) -> Int {
        // Found in a read, expired in small write transactions: the queue never waits long for
        // the write lock, even when a lowered limit expires thousands of integrations at once.
        // A bot whose latest number is within the limit has nothing to expire, and is not read
        // further; otherwise only its unexpired integrations up to the limit are (by
        // `integration_unexpired`), and the cells of those.
        let expiring = try await read("finding integrations past retention") { db in
            let bots: [String] = try bot.map { [$0] } ?? db.rows("SELECT name FROM bot").map { $0["name"] }
            return try bots.flatMap { bot in
                let latest: Int? = try db.rows("SELECT max(number) AS latest FROM integration WHERE bot = ?", bot).first?["latest"]
                guard let latest, latest - keep >= 1 else { return [(id: Int64, bot: String, number: Int)]() }
                return try db.rows(
                    """
                    SELECT id, number FROM integration
                    WHERE bot = ? AND NOT expired AND number <= ? AND cell_of IS NULL AND step = 'completed'
                    UNION ALL
                    SELECT id, number FROM integration
                    WHERE bot = ? AND cell_of IS NOT NULL AND cell_of <= ? AND NOT expired AND step = 'completed'
                    """, bot, latest - keep, bot, latest - keep
                ).map { (id: $0["id"] as Int64, bot: bot, number: $0["number"] as Int) }
            }
        }
        for start in stride(from: 0, to: expiring.count, by: StoreRules.retentionBatch) {
            let batch = Array(expiring[start..<min(start + StoreRules.retentionBatch, expiring.count)])
            let ids = batch.map(\.id)
            let inDatabase = engine.logsInDatabase
            try await write("applying retention") { db in
                let list = placeholders(ids.count)
                try db.execute("DELETE FROM issue WHERE integration_id IN (\(list))", ids)
                try db.execute("DELETE FROM test_case WHERE integration_id IN (\(list))", ids)
                if inDatabase { try db.execute("DELETE FROM log_chunk WHERE integration_id IN (\(list))", ids) }
                try Self.deleteAssets(db, of: ids, bytesInDatabase: inDatabase)
                try db.execute("UPDATE integration SET expired = true WHERE id IN (\(list))", ids)
            }
            for entry in batch {
                // the store no longer points at an expired integration's files; one that stays is only space
                if let log = logLocation(bot: entry.bot, number: entry.number) { try? FileManager.default.removeItem(atPath: log) }
                if let assets = assetsDirectory { try? FileManager.default.removeItem(atPath: "\(assets)/\(entry.bot)/\(entry.number)") }
            }
        }
        return expiring.count
    }
}
