import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    public func recoverAbandoned(isAlive: @Sendable (String) -> Bool, now: Date) async throws(StoreError) -> [Integration] {
        let running = try await read("reading running integrations") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM integration WHERE step NOT IN ('pending', 'completed') AND step != 'completed'").map {
                Claim(integration: Integration(row: $0), token: $0["claimToken"] ?? "")
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

// MARK: Hosts

/// One SQLite file serves one host (`ServeLock`): hosts are recorded for `kiln status` and the
/// pages, a host is never taken as lost by another, and every lease is its own.
extension SQLiteStore {
    public func heartbeat(_ host: HostReport) async throws(StoreError) {
        // `kiln run` beside one SQLite file is judged by its process, never by a lease: its
        // reports are not recorded, so it leaves no host behind to show as gone.
        guard host.executors > 0 else { return }
        let now = Date().storeValue
        try await write("recording this host's heartbeat") { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO host (name, version, executors, busy, botsDigest, lease, startedAt, lastHeard) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET lastHeard = excluded.lastHeard,
                        version = CASE WHEN excluded.executors = 0 THEN host.version ELSE excluded.version END,
                        executors = CASE WHEN excluded.executors = 0 THEN host.executors ELSE excluded.executors END,
                        busy = CASE WHEN excluded.executors = 0 THEN host.busy ELSE excluded.busy END,
                        botsDigest = CASE WHEN excluded.executors = 0 THEN host.botsDigest ELSE excluded.botsDigest END,
                        lease = CASE WHEN excluded.executors = 0 THEN host.lease ELSE excluded.lease END,
                        startedAt = CASE WHEN host.lastHeard + host.lease < excluded.lastHeard THEN excluded.startedAt ELSE host.startedAt END
                    """
            ).execute(arguments: [host.name, host.version, host.executors, host.busy, host.botsDigest, host.lease.seconds, now, now])
        }
    }

    public func hosts() async throws(StoreError) -> [HostRecord] {
        let now = Date().storeValue
        return try await read("reading hosts") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM host ORDER BY name").map { row in
                HostRecord(
                    name: row["name"], version: row["version"], executors: row["executors"], busy: row["busy"], botsDigest: row["botsDigest"],
                    startedAt: Date(storeValue: row["startedAt"]), lastHeard: Date(storeValue: row["lastHeard"]), lease: row["lease"],
                    gone: (row["lastHeard"] as Double) + (row["lease"] as Double) < now)
            }
        }
    }

    /// Nothing to recover (integrations are judged by their process), but a host gone this long
    /// is forgotten, as on every engine.
    public func recoverLostHosts(now: Date) async throws(StoreError) -> [Integration] {
        let before = now.addingTimeInterval(-StoreRules.forgetHostsAfter.seconds).storeValue
        try await write("forgetting hosts gone for good") { db in
            try db.execute(sql: "DELETE FROM host WHERE lastHeard < ?", arguments: [before])
        }
        return []
    }

    public func holdLease(_ name: String, holder: String, for duration: Duration) async throws(StoreError) -> Bool {
        true
    }
}
