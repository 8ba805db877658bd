import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    public func recoverAbandoned(isAlive: @Sendable (String) -> Bool, now: Date) async throws(StoreError) -> [Integration] {
        let running = try await read("reading running integrations") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM integration WHERE step NOT IN ('pending', 'completed') AND step != 'completed'").map {
                (integration: Integration(row: $0), owner: $0["owner"] as String? ?? "")
            }
        }
        return try await endAbandoned(running, isAlive: isAlive, now: now)
    }

    public func applyRetention(keep: Int, bot: String?) async throws(StoreError) -> Int {
        // Found in a read, expired in small write transactions: the queue never waits long for
        // the write lock, even when a lowered limit expires thousands of integrations at once.
        let expiring = try await read("finding integrations past retention") { db in
            let bots = try bot.map { [$0] } ?? String.fetchAll(db, sql: "SELECT name FROM bot")
            return try bots.flatMap { bot in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, number FROM integration
                        WHERE bot = ? AND number <= (SELECT max(number) FROM integration WHERE bot = ?) - ?
                            AND expired = 0 AND step = 'completed'
                        """, arguments: [bot, bot, keep]
                ).map { (id: $0["id"] as Int64, bot: bot, number: $0["number"] as Int) }
            }
        }
        for batch in stride(from: 0, to: expiring.count, by: StoreRules.retentionBatch).map({ expiring[$0..<min($0 + StoreRules.retentionBatch, expiring.count)] }) {
            try await write("applying retention") { db in
                for entry in batch {
                    try db.cachedStatement(sql: "DELETE FROM issue WHERE integrationId = ?").execute(arguments: [entry.id])
                    try db.cachedStatement(sql: "DELETE FROM testCase WHERE integrationId = ?").execute(arguments: [entry.id])
                    try db.cachedStatement(sql: "UPDATE integration SET expired = 1 WHERE id = ?").execute(arguments: [entry.id])
                }
            }
            for entry in batch {
                if let log = logLocation(bot: entry.bot, number: entry.number) { try? FileManager.default.removeItem(atPath: log) }
            }
        }
        return expiring.count
    }
}
