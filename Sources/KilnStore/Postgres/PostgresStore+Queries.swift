import Foundation
import KilnCore
import Logging
import PostgresNIO

extension PostgresStore {
    public func botOverviews() async throws(StoreError) -> [BotOverview] {
        try await read("reading the bots") { [logger] connection in
            let active = try await connection.rows("SELECT * FROM integration WHERE step <> 'completed' ORDER BY queued_at, id", logger: logger)
                .map(Integration.init(postgres:))
            let activeByBot = Dictionary(grouping: active, by: \.bot)
            let bots = try await connection.rows(
                """
                SELECT bot.*, (
                    SELECT id FROM integration WHERE integration.bot = bot.name AND step = 'completed' AND pull_number IS NULL
                    ORDER BY number DESC LIMIT 1
                ) AS last_id
                FROM bot ORDER BY name
                """, logger: logger)
            let lastIDs = try bots.compactMap { try $0("last_id", as: Int64?.self) }
            var lastByID: [Int64: Integration] = [:]
            if !lastIDs.isEmpty {
                for row in try await connection.rows("SELECT * FROM integration WHERE id = ANY(\(lastIDs))", logger: logger) {
                    let integration = try Integration(postgres: row)
                    lastByID[integration.id] = integration
                }
            }
            return try bots.map { row in
                let name: String = try row("name")
                let state = BotState(
                    name: name, file: try row("file"), repository: try row("repository"), branch: try row("branch"),
                    problems: JSON.decode([String].self, from: try row("problems"), default: []))
                let mine = activeByBot[name] ?? []
                return BotOverview(
                    state: state, loaded: try row("loaded"), last: try row("last_id", as: Int64?.self).flatMap { lastByID[$0] },
                    running: mine.filter(\.isRunning), queued: mine.filter { $0.step == .pending })
            }
        }
    }

    public func integrations(bot: String, limit: Int, before: Int?) async throws(StoreError) -> [Integration] {
        try await read("reading the integrations of '\(bot)'") { [logger] connection in
            try await connection.rows(
                "SELECT * FROM integration WHERE bot = \(bot) AND number < \(before ?? Int.max) ORDER BY number DESC LIMIT \(max(0, limit))",
                logger: logger
            ).map(Integration.init(postgres:))
        }
    }

    public func integration(bot: String, number: Int) async throws(StoreError) -> IntegrationDetail? {
        try await read("reading integration \(number) of '\(bot)'") { [logger] connection in
            guard let row = try await connection.row("SELECT * FROM integration WHERE bot = \(bot) AND number = \(number)", logger: logger)
            else { return nil }
            let integration = try Integration(postgres: row)
            let id = integration.id
            let steps = try await connection.rows("SELECT * FROM step WHERE integration_id = \(id) ORDER BY started_at", logger: logger).map {
                StepTiming(
                    name: IntegrationStep(rawValue: try $0("name")) ?? .pending, startedAt: Date(storeValue: try $0("started_at")),
                    duration: try $0("duration"))
            }
            let commits = try await connection.rows("SELECT * FROM integration_commit WHERE integration_id = \(id) ORDER BY position", logger: logger)
                .map {
                    Commit(
                        sha: try $0("sha"), author: try $0("author"), email: try $0("email"), date: Date(storeValue: try $0("date")),
                        subject: try $0("subject"))
                }
            let tests = try await connection.rows("SELECT * FROM test_case WHERE integration_id = \(id) ORDER BY id", logger: logger).map {
                TestCase(
                    suite: try $0("suite"), name: try $0("name"), status: TestStatus(rawValue: try $0("status")) ?? .passed,
                    duration: try $0("duration"), message: try $0("message"), file: try $0("file"), line: try $0("line"))
            }
            let triggers = try await connection.rows("SELECT * FROM trigger_run WHERE integration_id = \(id) ORDER BY id", logger: logger).map {
                TriggerRun(
                    name: try $0("name"), phase: TriggerPhase(rawValue: try $0("phase")) ?? .after, exitStatus: try $0("exit_status"),
                    duration: try $0("duration"))
            }
            return IntegrationDetail(
                integration: integration, steps: steps, commits: commits,
                issues: try await Self.issues(connection, integrationId: id, logger: logger), tests: tests, triggers: triggers)
        }
    }

    public func predecessor(_ kind: Predecessor, bot: String, before number: Int?) async throws(StoreError) -> Integration? {
        try await read("reading the integration before \(number.map { "#\($0)" } ?? "now") of '\(bot)'") { [logger] connection in
            try await Self.predecessor(connection, kind, bot: bot, before: number, logger: logger)
        }
    }

    /// `Predecessor`'s rules in SQL, within the caller's transaction.
    static func predecessor(_ connection: PostgresConnection, _ kind: Predecessor, bot: String, before number: Int?, logger: Logger) async throws
        -> Integration?
    {
        let condition: PostgresQuery =
            switch kind {
            case .withCommit:
                "SELECT * FROM integration WHERE bot = \(bot) AND number < \(number ?? Int.max) AND pull_number IS NULL AND commit_sha IS NOT NULL ORDER BY number DESC LIMIT 1"
            case .built:
                """
                SELECT * FROM integration WHERE bot = \(bot) AND number < \(number ?? Int.max) AND step = 'completed' AND pull_number IS NULL
                    AND result = ANY(\(IntegrationResult.built.map(\.rawValue))) ORDER BY number DESC LIMIT 1
                """
            case .ended:
                """
                SELECT * FROM integration WHERE bot = \(bot) AND number < \(number ?? Int.max) AND step = 'completed' AND pull_number IS NULL
                    AND result IS NOT NULL AND result <> 'canceled' ORDER BY number DESC LIMIT 1
                """
            }
        return try await connection.row(condition, logger: logger).map(Integration.init(postgres:))
    }
}
