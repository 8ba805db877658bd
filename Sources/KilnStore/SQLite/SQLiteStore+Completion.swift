import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    /// `IntegrationResult.built` as an SQL list.
    static let builtResults = "(" + IntegrationResult.built.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ") + ")"

    @discardableResult
    public func complete(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration {
        let id = claim.id
        return try await write("completing an integration") { db in
            guard let row = try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM integration WHERE id = ?"), arguments: [id]) else {
                throw StoreError.notFound(what: "integration \(id)")
            }
            let integration = Integration(row: row)
            // Two processes may race to end one integration (recovery, a host coming back): the
            // first wins, and the other hears that its claim was lost.
            try Self.checkClaim(db, claim)
            let previous = try Self.predecessor(db, .built, bot: integration.bot, before: integration.number)
            let previousIssues = try previous.map { try Self.issues(db, integrationId: $0.id) } ?? []
            var beforeFailedBuild: [IntegrationIssue] = []
            if let previous, previous.result == .buildErrors {
                let tested = "(" + StoreRules.testedResults.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
                let before = try Row.fetchOne(
                    db,
                    sql: "SELECT id FROM integration WHERE bot = ? AND number < ? AND step = 'completed' AND pullNumber IS NULL AND result IN \(tested) ORDER BY number DESC LIMIT 1",
                    arguments: [integration.bot, previous.number])
                if let id = before?["id"] as Int64? { beforeFailedBuild = try Self.issues(db, integrationId: id) }
            }
            let (summary, issues) = StoreRules.completion(
                outcome, previous: previous, previousIssues: previousIssues, beforeFailedBuild: beforeFailedBuild)

            try Self.closeSteps(db, id, now: now)
            try db.cachedStatement(
                sql: """
                    UPDATE integration SET step = 'completed', result = ?, reason = ?, endedAt = ?, startedAt = coalesce(startedAt, ?),
                        errors = ?, warnings = ?, tests = ?, testFailures = ?, coverage = ?,
                        errorsChange = ?, warningsChange = ?, testsChange = ?, testFailuresChange = ?, coverageChange = ?
                    WHERE id = ?
                    """
            ).execute(arguments: [
                outcome.result.rawValue, outcome.reason, now.storeValue, now.storeValue, summary.errors, summary.warnings, summary.tests,
                summary.testFailures, summary.coverage, summary.errorsChange, summary.warningsChange, summary.testsChange,
                summary.testFailuresChange, summary.coverageChange, id,
            ])
            for issue in issues {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO issue (integrationId, type, message, file, line, fingerprint, status, introducedBy)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    id, issue.type.rawValue, issue.message, issue.file, issue.line, issue.fingerprint, issue.status.rawValue,
                    JSON.encode(issue.introducedBy),
                ])
            }
            let insertTest = try db.makeStatement(
                sql: "INSERT INTO testCase (integrationId, suite, name, status, duration, message, file, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
            for test in outcome.tests {
                try insertTest.execute(arguments: [
                    id, test.suite, test.name, test.status.rawValue, test.duration, test.message, test.file, test.line,
                ])
            }
            for (position, commit) in outcome.commits.enumerated() {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO integrationCommit (integrationId, position, sha, author, email, date, subject)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [id, position, commit.sha, commit.author, commit.email, commit.date.storeValue, commit.subject])
            }
            for trigger in outcome.triggers {
                try db.cachedStatement(sql: "INSERT INTO triggerRun (integrationId, name, phase, exitStatus, duration) VALUES (?, ?, ?, ?, ?)")
                    .execute(arguments: [id, trigger.name, trigger.phase.rawValue, trigger.exitStatus, trigger.duration])
            }
            guard let completed = try Row.fetchOne(try db.cachedStatement(sql: "SELECT * FROM integration WHERE id = ?"), arguments: [id]) else {
                throw StoreError.notFound(what: "integration \(id)")
            }
            return Integration(row: completed)
        }
    }

    static func issues(_ db: Database, integrationId: Int64) throws -> [IntegrationIssue] {
        try Row.fetchAll(try db.cachedStatement(sql: "SELECT * FROM issue WHERE integrationId = ? ORDER BY id"), arguments: [integrationId]).map {
            row in
            IntegrationIssue(
                type: IssueType(rawValue: row["type"] ?? "") ?? .error, message: row["message"], file: row["file"], line: row["line"],
                fingerprint: row["fingerprint"], status: IssueStatus(rawValue: row["status"] ?? "") ?? .new,
                introducedBy: JSON.decode([Committer].self, from: row["introducedBy"], default: []))
        }
    }
}
