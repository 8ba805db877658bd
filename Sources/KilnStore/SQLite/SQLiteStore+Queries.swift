import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    public func botOverviews() async throws(StoreError) -> [BotOverview] {
        try await read("reading the bots") { db in
            let active = try Row.fetchAll(db, sql: "SELECT * FROM integration WHERE step != 'completed' ORDER BY queuedAt, id")
                .map(Integration.init(row:))
            let activeByBot = Dictionary(grouping: active, by: \.bot)
            let bots = try Row.fetchAll(
                db,
                sql: """
                    SELECT bot.*, last.id AS lastId FROM bot
                    LEFT JOIN integration AS last ON last.id = (
                        SELECT id FROM integration WHERE integration.bot = bot.name AND step = 'completed' AND pullNumber IS NULL
                        ORDER BY number DESC LIMIT 1)
                    ORDER BY bot.name
                    """)
            let lastIDs = bots.compactMap { $0["lastId"] as Int64? }
            var lastByID: [Int64: Integration] = [:]
            if !lastIDs.isEmpty {
                let placeholders = Array(repeating: "?", count: lastIDs.count).joined(separator: ",")
                for row in try Row.fetchAll(
                    db, sql: "SELECT * FROM integration WHERE id IN (\(placeholders))", arguments: StatementArguments(lastIDs))
                {
                    let integration = Integration(row: row)
                    lastByID[integration.id] = integration
                }
            }
            return bots.map { row in
                let name: String = row["name"]
                let state = BotState(
                    name: name, file: row["file"], repository: row["repository"], branch: row["branch"],
                    problems: JSON.decode([String].self, from: row["problems"], default: []))
                let mine = activeByBot[name] ?? []
                return BotOverview(
                    state: state, loaded: row["loaded"], last: (row["lastId"] as Int64?).flatMap { lastByID[$0] },
                    running: mine.filter(\.isRunning), queued: mine.filter { $0.step == .pending })
            }
        }
    }

    public func integrations(bot: String, limit: Int, before: Int?) async throws(StoreError) -> [Integration] {
        try await read("reading the integrations of '\(bot)'") { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM integration WHERE bot = ? AND number < ? ORDER BY number DESC LIMIT ?",
                arguments: [bot, before ?? Int.max, max(0, limit)]
            ).map(Integration.init(row:))
        }
    }

    public func integration(bot: String, number: Int) async throws(StoreError) -> IntegrationDetail? {
        try await read("reading integration \(number) of '\(bot)'") { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM integration WHERE bot = ? AND number = ?", arguments: [bot, number])
            else { return nil }
            let integration = Integration(row: row)
            let steps = try Row.fetchAll(db, sql: "SELECT * FROM step WHERE integrationId = ? ORDER BY startedAt", arguments: [integration.id])
                .map {
                    StepTiming(
                        name: IntegrationStep(rawValue: $0["name"] ?? "") ?? .pending, startedAt: Date(storeValue: $0["startedAt"]),
                        duration: $0["duration"])
                }
            let commits = try Row.fetchAll(
                db, sql: "SELECT * FROM integrationCommit WHERE integrationId = ? ORDER BY position", arguments: [integration.id]
            ).map { Commit(sha: $0["sha"], author: $0["author"], email: $0["email"], date: Date(storeValue: $0["date"]), subject: $0["subject"]) }
            let tests = try Row.fetchAll(db, sql: "SELECT * FROM testCase WHERE integrationId = ? ORDER BY id", arguments: [integration.id]).map {
                TestCase(
                    suite: $0["suite"], name: $0["name"], status: TestStatus(rawValue: $0["status"] ?? "") ?? .passed, duration: $0["duration"],
                    message: $0["message"], file: $0["file"], line: $0["line"])
            }
            let triggers = try Row.fetchAll(db, sql: "SELECT * FROM triggerRun WHERE integrationId = ? ORDER BY id", arguments: [integration.id]).map
            {
                TriggerRun(
                    name: $0["name"], phase: TriggerPhase(rawValue: $0["phase"] ?? "") ?? .after, exitStatus: $0["exitStatus"],
                    duration: $0["duration"])
            }
            return IntegrationDetail(
                integration: integration, steps: steps, commits: commits, issues: try Self.issues(db, integrationId: integration.id), tests: tests,
                triggers: triggers)
        }
    }
}

extension SQLiteStore {
    public func predecessor(_ kind: Predecessor, bot: String, before number: Int?) async throws(StoreError) -> Integration? {
        try await read("reading the integration before \(number.map { "#\($0)" } ?? "now") of '\(bot)'") { db in
            try Self.predecessor(db, kind, bot: bot, before: number)
        }
    }

    /// `Predecessor`'s rules in SQL, within the caller's transaction.
    static func predecessor(_ db: Database, _ kind: Predecessor, bot: String, before number: Int?) throws -> Integration? {
        let condition =
            switch kind {
            case .withCommit: "commitSha IS NOT NULL"
            case .built: "step = 'completed' AND result IN \(builtResults)"
            case .ended: "step = 'completed' AND result IS NOT NULL AND result != 'canceled'"
            }
        return try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT * FROM integration WHERE bot = ? AND number < ? AND pullNumber IS NULL AND \(condition) ORDER BY number DESC LIMIT 1"),
            arguments: [bot, number ?? Int.max]
        ).map(Integration.init(row:))
    }
}
