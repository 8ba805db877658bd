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
        var recovered: [Integration] = []
        for (integration, owner) in running where !isAlive(owner) {
            let reason =
                "the Kiln process running this integration (\(owner.isEmpty ? "unknown" : owner)) stopped during step '\(integration.step.rawValue)'; it was ended when Kiln started again"
            if let log = logLocation(bot: integration.bot, number: integration.number) { Self.append("\n*** \(reason)\n", toLog: log) }
            recovered.append(try await complete(integration.id, outcome: IntegrationOutcome(result: .internalError, reason: reason), now: now))
        }
        return recovered
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
        for batch in stride(from: 0, to: expiring.count, by: 200).map({ expiring[$0..<min($0 + 200, expiring.count)] }) {
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

    static func append(_ text: String, toLog path: String) {
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(text.utf8))
    }
}
