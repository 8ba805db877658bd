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

/// What pages, the API and mail read of bots and integrations (`IntegrationRecords`).
struct RecordStore<Engine: StoreEngine>: IntegrationRecords, StoreRole {
    let engine: Engine
}

extension RecordStore {
    public func botOverviews() async throws(StoreError) -> [BotOverview] {
        try await read("reading the bots") { db in
            let active = try db.rows("SELECT * FROM integration WHERE step <> 'completed' AND cell_of IS NULL ORDER BY queued_at, id").map(
                Integration.init(row:))
            let activeByBot = Dictionary(grouping: active, by: \.bot)
            let bots = try db.rows(
                """
                SELECT bot.*, (
                    SELECT id FROM integration WHERE integration.bot = bot.name AND step = 'completed' AND \(Self.branchOnly)
                    ORDER BY number DESC LIMIT 1) AS last_id
                FROM bot ORDER BY bot.name
                """)
            let lastIDs = bots.compactMap { $0["last_id"] as Int64? }
            var lastByID: [Int64: Integration] = [:]
            if !lastIDs.isEmpty {
                for row in try db.rows("SELECT * FROM integration WHERE id IN (\(placeholders(lastIDs.count)))", lastIDs) {
                    let integration = Integration(row: row)
                    lastByID[integration.id] = integration
                }
            }
            return bots.map { row in
                let name: String = row["name"]
                let state = BotState(
                    name: name, file: row["file"], repository: row["repository"], branch: row["branch"],
                    problems: JSON.decode([String].self, from: row["problems"], default: []), isPrivate: row["private"])
                let mine = activeByBot[name] ?? []
                return BotOverview(
                    state: state, loaded: row["loaded"], last: (row["last_id"] as Int64?).flatMap { lastByID[$0] },
                    running: mine.filter(\.isRunning), queued: mine.filter(\.isQueued))
            }
        }
    }

    public func integrations(bot: String, limit: Int, before: Int?) async throws(StoreError) -> [Integration] {
        try await read("reading the integrations of '\(bot)'") { db in
            try db.rows(
                "SELECT * FROM integration WHERE bot = ? AND number < ? AND bisection_id IS NULL AND cell_of IS NULL ORDER BY number DESC LIMIT ?",
                bot,
                before ?? Int.max,
                max(0, limit)
            )
            .map(Integration.init(row:))
        }
    }

    public func integrations(bot: String, matching filter: HistoryFilter, limit: Int, before: Int?) async throws(StoreError) -> [Integration] {
        var conditions = ["bot = ?", "number < ?", "bisection_id IS NULL", "cell_of IS NULL"]
        var arguments: [any SQLBindable] = [bot, before ?? Int.max]
        if let result = filter.result {
            conditions.append("result = ?")
            arguments.append(result.rawValue)
        }
        if let author = filter.author {
            conditions.append("lower(commit_author) LIKE ? ESCAPE '\\'")
            arguments.append("%" + Self.likeEscaped(author.lowercased()) + "%")
        }
        if let branch = filter.branch {
            conditions.append("branch = ?")
            arguments.append(branch)
        }
        if let pull = filter.pullRequest {
            conditions.append("pull_number = ?")
            arguments.append(pull)
        }
        arguments.append(max(0, limit))
        let sql = "SELECT * FROM integration WHERE \(conditions.joined(separator: " AND ")) ORDER BY number DESC LIMIT ?"
        return try await read("reading the integrations of '\(bot)'") { [arguments] db in try db.rows(sql, arguments).map(Integration.init(row:)) }
    }

    public func tests(bot: String, containing text: String, limit: Int) async throws(StoreError) -> [TestName] {
        let pattern = "%" + Self.likeEscaped(text.lowercased()) + "%"
        return try await read("searching the tests of '\(bot)'") { db in
            try db.rows(
                """
                SELECT DISTINCT suite, name FROM test_case WHERE integration_id IN (SELECT id FROM integration WHERE bot = ?)
                    AND (lower(suite) LIKE ? ESCAPE '\\' OR lower(name) LIKE ? ESCAPE '\\') ORDER BY suite, name LIMIT ?
                """, bot, pattern, pattern, max(0, limit)
            ).map { TestName(suite: $0["suite"], name: $0["name"]) }
        }
    }

    /// `text` with LIKE's wildcards (and the escape character) escaped, to be matched as it is.
    static func likeEscaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    public func integration(bot: String, number: Int) async throws(StoreError) -> IntegrationDetail? {
        try await read("reading integration \(number) of '\(bot)'") { db in
            guard let row = try db.row("SELECT * FROM integration WHERE bot = ? AND number = ?", bot, number) else { return nil }
            let integration = Integration(row: row)
            let id = integration.id
            let steps = try db.rows("SELECT * FROM step WHERE integration_id = ? ORDER BY started_at", id).map {
                StepTiming(name: $0["name"], startedAt: $0["started_at"], duration: $0["duration"])
            }
            let commits = try db.rows("SELECT * FROM integration_commit WHERE integration_id = ? ORDER BY position", id).map {
                Commit(sha: $0["sha"], author: $0["author"], email: $0["email"], date: $0["date"], subject: $0["subject"])
            }
            let tests = try db.rows("SELECT * FROM test_case WHERE integration_id = ? ORDER BY id", id).map(TestCase.init(row:))
            let triggers = try db.rows("SELECT * FROM trigger_run WHERE integration_id = ? ORDER BY id", id).map {
                TriggerRun(name: $0["name"], phase: $0["phase"], exitStatus: $0["exit_status"], duration: $0["duration"])
            }
            let assets = try db.rows("SELECT * FROM asset WHERE integration_id = ? ORDER BY name", id).map(Asset.init(row:))
            return IntegrationDetail(
                integration: integration, steps: steps, commits: commits, issues: try Self.issues(db, integration: id), tests: tests,
                triggers: triggers, assets: assets, cells: try Self.cells(db, bot: bot, number: number),
                dependencies: JSON.decode([DependencyPin].self, from: row["dependencies"], default: []))
        }
    }

    public func predecessor(_ kind: Predecessor, bot: String, before number: Int?) async throws(StoreError) -> Integration? {
        try await readStatement("reading the integration before \(number.map { "#\($0)" } ?? "now") of '\(bot)'") { db in
            try Self.predecessor(db, kind, bot: bot, before: number)
        }
    }

    public func pullRequests(bot: String, includeClosed: Bool) async throws(StoreError) -> [PullRequestOverview] {
        try await read("reading the pull requests of '\(bot)'") { db in
            try db.rows(
                """
                SELECT pull_request.*, (
                    SELECT id FROM integration WHERE integration.bot = pull_request.bot AND integration.pull_number = pull_request.number AND integration.cell_of IS NULL
                    ORDER BY number DESC LIMIT 1) AS latest_id
                FROM pull_request WHERE bot = ? AND (open OR ?) ORDER BY updated_at DESC, number DESC
                """, bot, includeClosed
            ).map { row in
                let latest = try (row["latest_id"] as Int64?).flatMap { id in
                    try db.row("SELECT * FROM integration WHERE id = ?", id).map(Integration.init(row:))
                }
                return PullRequestOverview(pullRequest: PullRequest(row: row), open: row["open"], latest: latest)
            }
        }
    }
}

extension StoreRole {
    /// `Predecessor`'s rules in SQL, within the caller's transaction. Pull requests are never
    /// anyone's predecessor: the branch's history skips them.
    static func predecessor(_ db: any SQLConnection, _ kind: Predecessor, bot: String, before number: Int?) throws -> Integration? {
        let condition =
            switch kind {
            // A re-run's commit is an earlier one's; a failed-only re-run's counts are of part of the tests.
            case .withCommit: "commit_sha IS NOT NULL AND rerun_of IS NULL"
            case .built: "step = 'completed' AND result IN \(sqlList(IntegrationResult.built)) AND (rerun_only IS NULL OR rerun_only <> 'failed')"
            case .ended: "step = 'completed' AND result IS NOT NULL AND result <> 'canceled'"
            }
        return try db.row(
            "SELECT * FROM integration WHERE bot = ? AND number < ? AND \(Self.branchOnly) AND \(condition) ORDER BY number DESC LIMIT 1",
            bot, number ?? Int.max
        ).map(Integration.init(row:))
    }
}
