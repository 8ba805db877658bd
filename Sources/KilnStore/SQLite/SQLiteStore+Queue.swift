import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    public func syncBots(_ bots: [BotState], now: Date) async throws(StoreError) {
        try await write("recording the loaded bots") { db in
            try db.execute(sql: "UPDATE bot SET loaded = 0")
            for bot in bots {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO bot (name, file, repository, branch, problems, loaded, updatedAt) VALUES (?, ?, ?, ?, ?, 1, ?)
                        ON CONFLICT (name) DO UPDATE SET file = excluded.file, repository = excluded.repository,
                            branch = excluded.branch, problems = excluded.problems, loaded = 1, updatedAt = excluded.updatedAt
                        """
                ).execute(arguments: [bot.name, bot.file, bot.repository, bot.branch, JSON.encode(bot.problems), now.storeValue])
            }
        }
    }

    public func enqueue(_ request: QueueRequest, now: Date) async throws(StoreError) -> QueueOutcome {
        try await write("queueing an integration of '\(request.bot)'") { db in try Self.enqueue(db, request, now: now) }
    }

    /// Queues, or coalesces, within the caller's transaction.
    static func enqueue(_ db: Database, _ request: QueueRequest, now: Date) throws -> QueueOutcome {
        try db.cachedStatement(sql: "INSERT INTO bot (name, branch, updatedAt) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING").execute(
            arguments: [request.bot, request.branch, now.storeValue])
        var superseded: [Int64] = []
        if request.cancelSuperseded, let commit = request.commit {
            superseded = try Int64.fetchAll(
                try db.cachedStatement(
                    sql: """
                        UPDATE integration SET cancelRequested = ?
                        WHERE bot = ? AND step NOT IN ('pending', 'completed') AND step != 'completed' AND commitSha IS NOT NULL AND commitSha != ?
                            AND cancelRequested IS NULL
                        RETURNING id
                        """), arguments: ["superseded by a newer commit, \(commit.prefix(12))", request.bot, commit])
        }
        if let queued = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT * FROM integration WHERE bot = ? AND step = 'pending' AND step != 'completed'"),
            arguments: [request.bot])
        {
            var integration = Integration(row: queued)
            if let commit = request.commit, commit != integration.commit {
                try db.cachedStatement(sql: "UPDATE integration SET commitSha = ? WHERE id = ?").execute(arguments: [commit, integration.id])
                integration.commit = commit
            }
            return QueueOutcome(integration: integration, coalesced: true, superseded: superseded)
        }
        if let latest = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT * FROM integration WHERE bot = ? AND step != 'pending' ORDER BY number DESC LIMIT 1"),
            arguments: [request.bot]),
            StoreRules.reaches(request, latest: Integration(row: latest), cancelRequested: (latest["cancelRequested"] as String?) != nil)
        {
            return QueueOutcome(integration: Integration(row: latest), coalesced: true, superseded: superseded)
        }
        guard
            let number = try Int.fetchOne(
                try db.cachedStatement(sql: "UPDATE bot SET nextNumber = nextNumber + 1 WHERE name = ? RETURNING nextNumber - 1"),
                arguments: [request.bot])
        else { throw StoreError.notFound(what: "bot '\(request.bot)'") }
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(
                    sql: """
                        INSERT INTO integration (bot, number, cause, commitSha, branch, step, queuedAt) VALUES (?, ?, ?, ?, ?, 'pending', ?)
                        RETURNING *
                        """), arguments: [request.bot, number, request.cause.rawValue, request.commit, request.branch, now.storeValue])
        else { throw StoreError.query(what: "queueing", reason: "no row returned") }
        return QueueOutcome(integration: Integration(row: row), coalesced: false, superseded: superseded)
    }

    public func claimNext(owner: String, now: Date) async throws(StoreError) -> Integration? {
        try await write("claiming a queued integration") { db in
            guard
                let row = try Row.fetchOne(
                    try db.cachedStatement(
                        sql: """
                            UPDATE integration SET step = 'checkout', startedAt = ?, owner = ?
                            WHERE id = (
                                SELECT queued.id FROM integration AS queued
                                WHERE queued.step = 'pending' AND queued.step != 'completed' AND NOT EXISTS (
                                    SELECT 1 FROM integration AS running
                                    WHERE running.bot = queued.bot AND running.step NOT IN ('pending', 'completed') AND running.step != 'completed' AND step != 'completed')
                                ORDER BY queued.queuedAt, queued.id LIMIT 1)
                            RETURNING *
                            """), arguments: [now.storeValue, owner])
            else { return nil }
            let integration = Integration(row: row)
            try db.cachedStatement(sql: "INSERT INTO step (integrationId, name, startedAt) VALUES (?, 'checkout', ?)").execute(arguments: [
                integration.id, now.storeValue,
            ])
            return integration
        }
    }

    public func claim(_ id: Int64, owner: String, now: Date) async throws(StoreError) -> Integration? {
        try await write("claiming integration \(id)") { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        UPDATE integration SET step = 'checkout', startedAt = ?, owner = ?
                        WHERE id = ? AND step = 'pending' AND step != 'completed' AND NOT EXISTS (
                            SELECT 1 FROM integration AS running
                            WHERE running.bot = integration.bot AND running.step NOT IN ('pending', 'completed')
                                AND running.step != 'completed')
                        RETURNING *
                        """, arguments: [now.storeValue, owner, id])
            else { return nil }
            try db.execute(sql: "INSERT INTO step (integrationId, name, startedAt) VALUES (?, 'checkout', ?)", arguments: [id, now.storeValue])
            return Integration(row: row)
        }
    }

    public func advance(_ id: Int64, to step: IntegrationStep, now: Date) async throws(StoreError) {
        try await write("recording step \(step.rawValue)") { db in
            try Self.closeSteps(db, id, now: now)
            try db.cachedStatement(sql: "UPDATE integration SET step = ? WHERE id = ?").execute(arguments: [step.rawValue, id])
            if step != .completed {
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO step (integrationId, name, startedAt) VALUES (?, ?, ?)").execute(arguments: [
                    id, step.rawValue, now.storeValue,
                ])
            }
        }
    }

    static func closeSteps(_ db: Database, _ id: Int64, now: Date) throws {
        try db.cachedStatement(sql: "UPDATE step SET duration = max(0, ? - startedAt) WHERE integrationId = ? AND duration IS NULL").execute(
            arguments: [now.storeValue, id])
    }

    public func setCommit(_ id: Int64, commit: String) async throws(StoreError) {
        try await write("recording the commit") { db in
            try db.cachedStatement(sql: "UPDATE integration SET commitSha = ? WHERE id = ?").execute(arguments: [commit, id])
        }
    }

    public func requestCancel(_ id: Int64, reason: String) async throws(StoreError) {
        try await write("asking an integration to stop") { db in
            try db.cachedStatement(sql: "UPDATE integration SET cancelRequested = ? WHERE id = ? AND step != 'completed' AND cancelRequested IS NULL")
                .execute(arguments: [reason, id])
        }
    }

    public func cancelRequests(owner: String) async throws(StoreError) -> [CancelRequest] {
        try await read("reading cancel requests") { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT id, cancelRequested FROM integration
                        WHERE owner = ? AND step NOT IN ('pending', 'completed') AND step != 'completed' AND cancelRequested IS NOT NULL
                        """), arguments: [owner]
            ).map { CancelRequest(id: $0["id"], reason: $0["cancelRequested"]) }
        }
    }
}
