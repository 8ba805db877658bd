import Foundation
import KilnCore
import Logging
import PostgresNIO

extension PostgresStore {
    public func recoverAbandoned(isAlive: @Sendable (String) -> Bool, now: Date) async throws(StoreError) -> [Integration] {
        let running = try await read("reading running integrations") { [logger] connection in
            try await connection.rows("SELECT * FROM integration WHERE step NOT IN ('pending', 'completed')", logger: logger).map {
                Claim(integration: try Integration(postgres: $0), token: try $0("claim_token", as: String?.self) ?? "")
            }
        }
        return try await endAbandoned(running, isAlive: isAlive, now: now)
    }

    public func applyRetention(keep: Int, bot: String?) async throws(StoreError) -> Int {
        let expiring = try await read("finding integrations past retention") { [logger] connection in
            try await connection.rows(
                """
                SELECT integration.id, integration.bot, integration.number FROM integration
                JOIN (SELECT bot, max(number) AS newest FROM integration GROUP BY bot) AS latest ON latest.bot = integration.bot
                WHERE (\(bot)::text IS NULL OR integration.bot = \(bot)) AND integration.number <= latest.newest - \(keep)
                    AND NOT integration.expired AND integration.step = 'completed'
                """, logger: logger
            ).map { (id: try $0("id", as: Int64.self), bot: try $0("bot", as: String.self), number: try $0("number", as: Int.self)) }
        }
        let batches = stride(from: 0, to: expiring.count, by: StoreRules.retentionBatch).map {
            Array(expiring[$0..<min($0 + StoreRules.retentionBatch, expiring.count)])
        }
        for batch in batches {
            let ids = batch.map(\.id)
            try await write("applying retention") { [logger] connection in
                try await connection.execute("DELETE FROM issue WHERE integration_id = ANY(\(ids))", logger: logger)
                try await connection.execute("DELETE FROM test_case WHERE integration_id = ANY(\(ids))", logger: logger)
                try await connection.execute("DELETE FROM log_chunk WHERE integration_id = ANY(\(ids))", logger: logger)
                try await connection.execute("UPDATE integration SET expired = true WHERE id = ANY(\(ids))", logger: logger)
            }
            for entry in batch {
                if let copy = logLocation(bot: entry.bot, number: entry.number) { try? FileManager.default.removeItem(atPath: copy) }
            }
        }
        return expiring.count
    }
}
