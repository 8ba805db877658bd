import Foundation
import KilnCore
import Logging
import PostgresNIO

extension PostgresStore {
    @discardableResult
    public func complete(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration {
        try await write("completing an integration") { [logger] connection in
            try await Self.complete(connection, claim, outcome: outcome, now: now, logger: logger)
        }
    }

    /// Completes within the caller's transaction (recovery ends and re-queues in one).
    static func complete(_ connection: PostgresConnection, _ claim: Claim, outcome: IntegrationOutcome, now: Date, logger: Logger) async throws
        -> Integration
    {
        let id = claim.id
        guard let row = try await connection.row("SELECT * FROM integration WHERE id = \(id) FOR UPDATE", logger: logger) else {
            throw StoreError.notFound(what: "integration \(id)")
        }
        let integration = try Integration(postgres: row)
        // Two hosts or processes may race to end one integration (recovery, a host coming
        // back): the first wins, and the other hears that its claim was lost.
        if let refusal = StoreRules.refusal(of: claim, step: integration.step, token: try row("claim_token"), reason: integration.reason) {
            throw refusal
        }
        let previous = try await Self.predecessor(connection, .built, bot: integration.bot, before: integration.number, logger: logger)
        var previousIssues: [IntegrationIssue] = []
        var beforeFailedBuild: [IntegrationIssue] = []
        if let previous {
            previousIssues = try await Self.issues(connection, integrationId: previous.id, logger: logger)
            if previous.result == .buildErrors,
                let before = try await connection.row(
                    """
                    SELECT id FROM integration WHERE bot = \(integration.bot) AND number < \(previous.number) AND step = 'completed' AND pull_number IS NULL
                        AND result = ANY(\(StoreRules.testedResults.map(\.rawValue))) ORDER BY number DESC LIMIT 1
                    """, logger: logger)
            {
                beforeFailedBuild = try await Self.issues(connection, integrationId: try before("id"), logger: logger)
            }
        }
        let (summary, issues) = StoreRules.completion(
            outcome, previous: previous, previousIssues: previousIssues, beforeFailedBuild: beforeFailedBuild)

        try await Self.closeSteps(connection, id, now: now, logger: logger)
        try await connection.execute(
            """
            UPDATE integration SET step = 'completed', result = \(outcome.result.rawValue), reason = \(outcome.reason), ended_at = \(now.storeValue),
                started_at = coalesce(started_at, \(now.storeValue)), errors = \(summary.errors), warnings = \(summary.warnings),
                tests = \(summary.tests), test_failures = \(summary.testFailures), coverage = \(summary.coverage),
                errors_change = \(summary.errorsChange), warnings_change = \(summary.warningsChange), tests_change = \(summary.testsChange),
                test_failures_change = \(summary.testFailuresChange), coverage_change = \(summary.coverageChange)
            WHERE id = \(id)
            """, logger: logger)
        for issue in issues {
            try await connection.execute(
                """
                INSERT INTO issue (integration_id, type, message, file, line, fingerprint, status, introduced_by)
                VALUES (\(id), \(issue.type.rawValue), \(issue.message), \(issue.file), \(issue.line), \(issue.fingerprint),
                    \(issue.status.rawValue), \(JSON.encode(issue.introducedBy)))
                """, logger: logger)
        }
        // Tests come in thousands: one statement of arrays, not a round trip each. Arrays carry
        // no NULLs here, so absent values travel as '' and -1.
        if !outcome.tests.isEmpty {
            let tests = outcome.tests
            try await connection.execute(
                """
                INSERT INTO test_case (integration_id, suite, name, status, duration, message, file, line)
                SELECT \(id), suite, name, status, duration, nullif(message, ''), nullif(file, ''), nullif(line, -1)
                FROM unnest(\(tests.map(\.suite)), \(tests.map(\.name)), \(tests.map(\.status.rawValue)), \(tests.map(\.duration)),
                    \(tests.map { $0.message ?? "" }), \(tests.map { $0.file ?? "" }), \(tests.map { $0.line ?? -1 }))
                    AS test(suite, name, status, duration, message, file, line)
                """, logger: logger)
        }
        for (position, commit) in outcome.commits.enumerated() {
            try await connection.execute(
                """
                INSERT INTO integration_commit (integration_id, position, sha, author, email, date, subject)
                VALUES (\(id), \(position), \(commit.sha), \(commit.author), \(commit.email), \(commit.date.storeValue), \(commit.subject))
                """, logger: logger)
        }
        for trigger in outcome.triggers {
            try await connection.execute(
                """
                INSERT INTO trigger_run (integration_id, name, phase, exit_status, duration)
                VALUES (\(id), \(trigger.name), \(trigger.phase.rawValue), \(trigger.exitStatus), \(trigger.duration))
                """, logger: logger)
        }
        guard let completed = try await connection.row("SELECT * FROM integration WHERE id = \(id)", logger: logger) else {
            throw StoreError.notFound(what: "integration \(id)")
        }
        return try Integration(postgres: completed)
    }

    static func issues(_ connection: PostgresConnection, integrationId: Int64, logger: Logger) async throws -> [IntegrationIssue] {
        try await connection.rows("SELECT * FROM issue WHERE integration_id = \(integrationId) ORDER BY id", logger: logger).map { row in
            IntegrationIssue(
                type: IssueType(rawValue: try row("type")) ?? .error, message: try row("message"), file: try row("file"), line: try row("line"),
                fingerprint: try row("fingerprint"), status: IssueStatus(rawValue: try row("status")) ?? .new,
                introducedBy: JSON.decode([Committer].self, from: try row("introduced_by"), default: []))
        }
    }
}
