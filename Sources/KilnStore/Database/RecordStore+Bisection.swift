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

extension RecordStore {
    public func bisection(of integrationID: Int64) async throws(StoreError) -> Bisection? {
        try await read("reading the bisection of integration \(integrationID)") { db in
            try db.row("SELECT * FROM bisection WHERE integration_id = ? ORDER BY id DESC LIMIT 1", integrationID).map(Bisection.init(row:))
        }
    }

    public func bisection(id: Int64) async throws(StoreError) -> (bisection: Bisection, bisected: Int)? {
        try await read("reading bisection \(id)") { db in
            try db.row(
                """
                SELECT bisection.*, integration.number AS bisected_number
                FROM bisection JOIN integration ON integration.id = bisection.integration_id WHERE bisection.id = ?
                """, id
            ).map { (Bisection(row: $0), $0["bisected_number"]) }
        }
    }
}

extension StoreRole {
    /// Integrations of the branch: not of a pull request, not a step of a bisection, not a cell
    /// of a matrix. Qualified, so that it holds in joins too.
    static var branchOnly: String {
        "integration.pull_number IS NULL AND integration.bisection_id IS NULL AND integration.cell_of IS NULL"
    }

    /// Starts a bisection within `complete`'s transaction when `integration` (just completed,
    /// its issues marked) brought new errors, test failures or performance regressions
    /// (`Bisection.soughtTypes`) that blame laid on several committers of a range of several
    /// commits; queues its first bisect integrations.
    static func startBisection(
        _ db: any SQLConnection, _ integration: Integration, issues: [IntegrationIssue], commits: [Commit], request: BisectRequest, now: Date
    ) throws {
        let sought = issues.filter { issue in
            issue.status == .new && Bisection.soughtTypes.contains(issue.type) && Set(issue.introducedBy.map(\.email)).count > 1
        }
        // A fork's commits are not bisected: bisect integrations run as the branch's, with secrets.
        guard commits.count >= 2, !sought.isEmpty, let commit = integration.commit, commits.first?.sha == commit,
            integration.pullRequest?.fork != true
        else { return }
        // The range oldest first; the integration's own commit, last, is known bad.
        var bisection = Bisection(
            id: 0, bot: integration.bot, integrationID: integration.id, commits: commits.reversed(), fingerprints: sought.map(\.fingerprint),
            maxIntegrations: request.maxIntegrations, createdAt: now)
        guard
            let id: Int64 = try db.value(
                """
                INSERT INTO bisection (bot, integration_id, commits, fingerprints, max_integrations, state, created_at)
                VALUES (?, ?, ?, ?, ?, 'running', ?) RETURNING id
                """, bisection.bot, integration.id, JSON.encode(bisection.commits), JSON.encode(bisection.fingerprints),
                request.maxIntegrations, now)
        else { throw StoreError.query(what: "starting a bisection", reason: "no id returned") }
        bisection.id = id
        try advance(db, &bisection, branch: integration.branch, now: now)
    }

    /// Records what a bisect integration showed, within `complete`'s transaction, and takes
    /// the bisection on when its round is over.
    static func recordBisectStep(
        _ db: any SQLConnection, _ probe: Integration, found: Set<String>, result: IntegrationResult, now: Date
    ) throws {
        guard let id = probe.bisectionID, let commit = probe.commit,
            let row = try db.row("SELECT * FROM bisection WHERE id = ?\(db.dialect.lock())", id)
        else { return }
        var bisection = Bisection(row: row)
        guard bisection.state == .running else { return }
        bisection.verdicts[commit] = Bisection.verdict(result: result, found: found, sought: bisection.fingerprints)
        try db.execute("UPDATE bisection SET verdicts = ? WHERE id = ?", JSON.encode(bisection.verdicts), id)
        // A round is over when none of its integrations is still to end.
        let waiting: Int =
            try db.value("SELECT count(*) FROM integration WHERE bisection_id = ? AND step <> 'completed' AND id <> ?", id, probe.id) ?? 0
        guard waiting == 0 else { return }
        try advance(db, &bisection, branch: probe.branch, now: now)
    }

    /// Queues the next round, or ends the bisection: found, the culprit becomes the only one who
    /// introduced the failures it sought, marked bisected.
    ///
    /// A round integrates as many commits as there are executors idle on the hosts that are
    /// alive (heard within their lease), at most `Bisection.workspaces`; one when none is idle.
    private static func advance(_ db: any SQLConnection, _ bisection: inout Bisection, branch: String, now: Date) throws {
        let idle: Int =
            try db.value(
                """
                SELECT CAST((SELECT coalesce(sum(executors), 0) FROM host WHERE last_heard + lease >= \(db.dialect.now))
                    - (SELECT count(*) FROM integration WHERE step NOT IN ('pending', 'completed') AND step <> 'completed') AS bigint)
                """) ?? 0
        switch bisection.next(parallel: min(Bisection.workspaces, max(1, idle))) {
        case .integrate(let commits):
            for commit in commits {
                guard
                    let number: Int = try db.value(
                        "UPDATE bot SET next_number = next_number + 1 WHERE name = ? RETURNING next_number - 1", bisection.bot)
                else { throw StoreError.notFound(what: "bot '\(bisection.bot)'") }
                try db.execute(
                    """
                    INSERT INTO integration (bot, number, cause, commit_sha, branch, step, queued_at, bisection_id)
                    VALUES (?, ?, 'bisect', ?, ?, 'pending', ?, ?)
                    """, bisection.bot, number, commit.sha, branch, now, bisection.id)
                bisection.integrations.append(number)
            }
            try db.execute("UPDATE bisection SET integrations = ? WHERE id = ?", JSON.encode(bisection.integrations), bisection.id)
        case .found(let culprit):
            try db.execute(
                "UPDATE bisection SET state = 'found', culprit = ?, ended_at = ? WHERE id = ?", culprit.sha, now, bisection.id)
            let committer = Committer(name: culprit.author, email: culprit.email, commit: culprit.sha, bisected: true)
            try db.execute(
                "UPDATE issue SET introduced_by = ? WHERE integration_id = ? AND fingerprint IN (\(placeholders(bisection.fingerprints.count)))",
                [JSON.encode([committer]), bisection.integrationID] + bisection.fingerprints)
        case .failed(let failure):
            try db.execute("UPDATE bisection SET state = 'failed', reason = ?, ended_at = ? WHERE id = ?", failure.stored, now, bisection.id)
        }
    }
}

extension Bisection {
    init(row: SQLRow) {
        self.init(
            id: row["id"], bot: row["bot"], integrationID: row["integration_id"],
            commits: JSON.decode([Commit].self, from: row["commits"], default: []),
            fingerprints: JSON.decode([String].self, from: row["fingerprints"], default: []),
            verdicts: JSON.decode([String: Verdict].self, from: row["verdicts"], default: [:]),
            integrations: JSON.decode([Int].self, from: row["integrations"], default: []), maxIntegrations: row["max_integrations"],
            state: State(rawValue: row["state"]) ?? .failed, culprit: row["culprit"],
            failure: (row["reason"] as String?).map(Failure.init(stored:)), createdAt: row["created_at"])
    }
}
