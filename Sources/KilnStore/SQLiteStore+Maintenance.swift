import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    public func recoverAbandoned(isAlive: (String) -> Bool, now: Date) throws(StoreError) -> [Integration] {
        let running = try read("reading running integrations") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM integration WHERE step NOT IN ('pending', 'completed') AND step != 'completed'").map {
                (integration: Integration(row: $0), owner: $0["owner"] as String? ?? "")
            }
        }
        var recovered: [Integration] = []
        for (integration, owner) in running where !isAlive(owner) {
            let reason =
                "the Kiln process running this integration (\(owner.isEmpty ? "unknown" : owner)) stopped during step '\(integration.step.rawValue)'; it was ended when Kiln started again"
            if let log = logPath(bot: integration.bot, number: integration.number) { Self.append("\n*** \(reason)\n", toLog: log) }
            recovered.append(try complete(integration.id, outcome: IntegrationOutcome(result: .internalError, reason: reason), now: now))
        }
        return recovered
    }

    public func applyRetention(keep: Int) throws(StoreError) -> Int {
        let expiring = try write("applying retention") { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT integration.id, integration.bot, integration.number FROM integration
                    JOIN (SELECT bot, max(number) AS newest FROM integration GROUP BY bot) AS latest ON latest.bot = integration.bot
                    WHERE integration.step = 'completed' AND integration.expired = 0 AND integration.number <= latest.newest - ?
                    """, arguments: [keep])
            for row in rows {
                let id: Int64 = row["id"]
                try db.execute(sql: "DELETE FROM issue WHERE integrationId = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM testCase WHERE integrationId = ?", arguments: [id])
                try db.execute(sql: "UPDATE integration SET expired = 1 WHERE id = ?", arguments: [id])
            }
            return rows.map { (bot: $0["bot"] as String, number: $0["number"] as Int) }
        }
        for (bot, number) in expiring {
            if let log = logPath(bot: bot, number: number) { try? FileManager.default.removeItem(atPath: log) }
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
