//===----------------------------------------------------------------------===//
//
// This source file is part of the Kiln open source project
//
// Copyright (c) 2026 the Kiln project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import KilnCore

extension QueueStore {
    /// The holder's completion. Its claim token is cleared, which tells its own stop-request
    /// checks (`StoreRules.stopRequest`) that it ended normally, not that another host took it.
    ///
    /// A matrix's integration that ended before its cells did (canceled, timed out, its checkout
    /// failed) ends them in the same transaction: its queued cells are canceled and its running
    /// ones asked to stop, so that no cell outlives its integration even when the earlier
    /// `endCells` was lost, since this write is retried until the store takes it.
    @discardableResult
    public func complete(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration {
        try await write("completing an integration", notify: .queue) { db in
            let integration = try Self.complete(db, claim, outcome: outcome, now: now)
            try db.execute("UPDATE integration SET claim_token = NULL WHERE id = ?", claim.id)
            let unfinished: Int64 =
                try db.value(
                    "SELECT count(*) FROM integration WHERE bot = ? AND cell_of = ? AND step <> 'completed'", integration.bot, integration.number)
                ?? 0
            if unfinished > 0 {
                try Self.endCells(
                    db, bot: integration.bot, number: integration.number, lacking: nil,
                    reason: outcome.reason ?? .matrixEnded(result: outcome.result), now: now)
                try db.announce(.stop)
            }
            return integration
        }
    }
}

extension StoreRole {
    /// The subject and author of `integration`'s commit: from its new commits, else (a re-run, a
    /// commit integrated again, with nothing new) as an earlier integration of it recorded them.
    static func head(_ db: any SQLConnection, of integration: Integration, among commits: [Commit]) throws -> (subject: String, author: String)? {
        guard let sha = integration.commit else { return nil }
        if let commit = commits.first(where: { $0.sha == sha }) { return (commit.subject, commit.author) }
        let row = try db.row(
            "SELECT commit_subject, commit_author FROM integration WHERE bot = ? AND commit_sha = ? AND commit_subject IS NOT NULL LIMIT 1",
            integration.bot, sha)
        guard let row, let subject: String = row["commit_subject"], let author: String = row["commit_author"] else { return nil }
        return (subject, author)
    }

    /// Ends an integration within the caller's transaction: marks its issues against the
    /// predecessor that built, computes the summary's changes, and stores what it found.
    static func complete(_ db: any SQLConnection, _ claim: Claim, outcome: IntegrationOutcome, now: Date) throws -> Integration {
        let id = claim.id
        // Two processes may race to end one integration (recovery, a host coming back): the
        // first wins, and the other hears that its claim was lost.
        try checkClaim(db, claim)
        guard let row = try db.row("SELECT * FROM integration WHERE id = ?", id) else { throw StoreError.notFound(what: "integration \(id)") }
        let integration = Integration(row: row)
        let previous = try predecessor(db, .built, bot: integration.bot, before: integration.number)
        let previousIssues = try previous.map { try Self.issues(db, integration: $0.id) } ?? []
        var beforeFailedBuild: [IntegrationIssue] = []
        if let previous, previous.result == .buildErrors,
            let tested: Int64 = try db.value(
                """
                SELECT id FROM integration WHERE bot = ? AND number < ? AND step = 'completed' AND \(Self.branchOnly)
                    AND result IN \(sqlList(StoreRules.testedResults)) ORDER BY number DESC LIMIT 1
                """, integration.bot, previous.number)
        {
            beforeFailedBuild = try Self.issues(db, integration: tested)
        }
        let (summary, issues) = StoreRules.completion(
            outcome, previous: previous, previousIssues: previousIssues, beforeFailedBuild: beforeFailedBuild)

        try closeSteps(db, id, now: now)
        let head = try Self.head(db, of: integration, among: outcome.commits)
        try db.execute(
            """
            UPDATE integration SET step = 'completed', result = ?, reason = ?, ended_at = ?, started_at = coalesce(started_at, ?),
                issue_counts = ?, issue_changes = ?, tests = ?, coverage = ?, tests_change = ?, coverage_change = ?, dependencies = ?,
                commit_subject = ?, commit_author = ?, shards = ?, patch_coverage = ?
            WHERE id = ?
            """, outcome.result.rawValue, outcome.reason, now, now, IssueCounts.encode(summary.issues),
            summary.issueChanges.isEmpty ? nil : IssueCounts.encode(summary.issueChanges), summary.tests, summary.coverage, summary.testsChange,
            summary.coverageChange, outcome.dependencies.isEmpty ? nil : JSON.encode(outcome.dependencies), head?.subject, head?.author,
            outcome.shards.isEmpty ? nil : JSON.encode(outcome.shards), outcome.patchCoverage.map(JSON.encode), id)
        try insert(db, issues: issues, tests: outcome.tests, into: id)
        if let review = outcome.review {
            try queueReview(
                db, ReviewDraft.compose(review, bot: integration.bot, number: integration.number, issues: issues), integration: id, now: now)
        }
        // A matrix's integration now holds what its cells found (each with its cell) and the
        // archive its archiving cell kept: the cells keep their result, summary and log.
        if !outcome.cells.isEmpty {
            let cells = "SELECT id FROM integration WHERE bot = ? AND cell_of = ?"
            try db.execute("DELETE FROM issue WHERE integration_id IN (\(cells))", integration.bot, integration.number)
            try db.execute("DELETE FROM test_case WHERE integration_id IN (\(cells))", integration.bot, integration.number)
            try db.execute("UPDATE asset SET integration_id = ? WHERE integration_id IN (\(cells))", id, integration.bot, integration.number)
            if db.dialect == .postgres {
                try db.execute(
                    "UPDATE asset_chunk SET integration_id = ? WHERE integration_id IN (\(cells))", id, integration.bot, integration.number)
            }
        }
        for (position, commit) in outcome.commits.enumerated() {
            try db.execute(
                "INSERT INTO integration_commit (integration_id, position, sha, author, email, date, subject) VALUES (?, ?, ?, ?, ?, ?, ?)",
                id, position, commit.sha, commit.author, commit.email, commit.date, commit.subject)
        }
        for trigger in outcome.triggers {
            try db.execute(
                "INSERT INTO trigger_run (integration_id, name, phase, exit_status, duration) VALUES (?, ?, ?, ?, ?)",
                id, trigger.name, trigger.phase.rawValue, trigger.exitStatus, trigger.duration)
        }
        guard let completed = try db.row("SELECT * FROM integration WHERE id = ?", id) else { throw StoreError.notFound(what: "integration \(id)") }
        let ended = Integration(row: completed)
        if ended.bisectionID != nil {
            try recordBisectStep(db, ended, found: Set(outcome.issues.map(\.fingerprint)), result: outcome.result, now: now)
        } else if let request = outcome.bisect {
            try startBisection(db, ended, issues: issues, commits: outcome.commits, request: request, now: now)
        }
        return ended
    }

    static func insert(_ db: any SQLConnection, issues: [IntegrationIssue], tests: [TestCase], into id: Int64) throws {
        for issue in issues {
            try db.execute(
                """
                INSERT INTO issue (integration_id, type, message, file, line, fingerprint, status, introduced_by, cells, analyzer_check)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, id, issue.type.rawValue, issue.message, issue.file, issue.line, issue.fingerprint, issue.status.rawValue,
                JSON.encode(issue.introducedBy), issue.cells.isEmpty ? nil : JSON.encode(issue.cells), issue.check?.rawValue)
        }
        for test in tests {
            try db.execute(
                """
                INSERT INTO test_case (integration_id, suite, name, status, duration, message, file, line, quarantined, measurement, cell)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, id, test.suite, test.name, test.status.rawValue, test.duration, test.message, test.file, test.line, test.quarantined,
                test.measurement.map { JSON.encode($0) }, test.cell)
        }
    }

    static func issues(_ db: any SQLConnection, integration id: Int64) throws -> [IntegrationIssue] {
        try db.rows("SELECT * FROM issue WHERE integration_id = ? ORDER BY id", id).map(IntegrationIssue.init(row:))
    }
}
