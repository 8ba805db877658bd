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

/// The routines of a transaction that queues: a request's integration queued or coalesced, a
/// pull request recorded or closed. Run by the queue (`kiln trigger`, polls), by a webhook's
/// delivery and by a lost host's recovery, each in its own transaction.
enum Queueing {
    /// Queues, or coalesces, one request within the caller's transaction.
    static func enqueue(_ db: any SQLConnection, _ request: QueueRequest, now: Date) throws -> QueueOutcome {
        guard let outcome = try enqueue(db, [request], now: now).first else { throw StoreError.query(what: "queueing", reason: "no outcome") }
        return outcome
    }

    /// Records a pull request as the forge last described it, open or closed.
    static func record(_ db: any SQLConnection, _ pullRequest: PullRequest, bot: String, open: Bool, now: Date) throws {
        try db.execute(
            """
            INSERT INTO pull_request (bot, number, title, author, url, head, base, ref, fork, open, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (bot, number) DO UPDATE SET title = excluded.title, author = excluded.author, url = excluded.url, head = excluded.head,
                base = excluded.base, ref = excluded.ref, fork = excluded.fork, open = excluded.open, updated_at = excluded.updated_at
            """, bot, pullRequest.number, pullRequest.title, pullRequest.author, pullRequest.url, pullRequest.head, pullRequest.base,
            pullRequest.ref, pullRequest.fork, open, now)
    }

    /// Closes a pull request for a bot: its queued integration ends as canceled, its running one is
    /// asked to stop. Returns the integrations it reached.
    static func close(_ db: any SQLConnection, _ closing: PullRequestClosing, now: Date) throws -> [Integration] {
        try db.execute("UPDATE pull_request SET open = false, updated_at = ? WHERE bot = ? AND number = ?", now, closing.bot, closing.number)
        let canceled = try db.rows(
            """
            UPDATE integration SET step = 'completed', result = 'canceled', reason = ?, ended_at = ?
            WHERE bot = ? AND step = 'pending' AND step <> 'completed' AND pull_number = ?
            RETURNING *
            """, closing.reason, now, closing.bot, closing.number
        ).map(Integration.init(row:))
        let stopping = try db.rows(
            """
            UPDATE integration SET cancel_requested = ?
            WHERE bot = ? AND step IN \(runningSteps) AND step <> 'completed' AND pull_number = ? AND cancel_requested IS NULL
            RETURNING *
            """, closing.reason, closing.bot, closing.number
        ).map(Integration.init(row:))
        if !stopping.isEmpty { try db.announce(.stop) }
        return canceled + stopping
    }

    /// Queues, or coalesces, `requests` within the caller's transaction, in a few statements
    /// however many bots they reach: a push to a repository that 432 bots build took 3,000
    /// statements one bot at a time (0.87 s on PostgreSQL with 24 hosts busy), and takes eight.
    /// Each request has the outcome it would have alone: coalesced into its bot's queued
    /// integration, reaching the one its commit was integrated by, or queued anew; a push asks
    /// the bot's running integration of another commit to stop. A request for a bot that an
    /// earlier one of `requests` names is queued after it, seeing its outcome.
    static func enqueue(_ db: any SQLConnection, _ requests: [QueueRequest], now: Date) throws -> [QueueOutcome] {
        var named = Set<String>()
        if let again = requests.firstIndex(where: { !named.insert($0.bot).inserted }) {
            return try enqueue(db, Array(requests[..<again]), now: now) + enqueue(db, Array(requests[again...]), now: now)
        }
        guard !requests.isEmpty else { return [] }
        if requests.contains(where: { $0.rerunOf != nil }) {
            return try requests.map { request in
                guard let rerun = request.rerunOf else { return try enqueue(db, [request], now: now)[0] }
                return try queueRerun(db, request, rerun, now: now)
            }
        }
        try lockBots(db, requests, now: now)
        // The bots' unfinished integrations (not a bisection's): what a push supersedes, and the
        // queued ones it coalesces into.
        let active = Dictionary(
            grouping: try batches(requests.map(\.bot)).flatMap { chunk in
                try db.rows(
                    "SELECT * FROM integration WHERE bot IN (\(placeholders(chunk.count))) AND step IN \(unfinishedSteps) AND step <> 'completed' AND bisection_id IS NULL AND cell_of IS NULL AND rerun_of IS NULL ORDER BY id",
                    bindable(chunk))
            }
        ) { $0["bot"] as String }
        let superseded = try supersede(db, requests, active: active)
        for request in requests {
            if let pullRequest = request.pullRequest { try record(db, pullRequest, bot: request.bot, open: true, now: now) }
        }
        var outcomes: [String: QueueOutcome] = [:]
        var unqueued: [QueueRequest] = []
        var commits: [String: [Int64]] = [:]
        for request in requests {
            let queued = active[request.bot]?.first {
                ($0["step"] as String) == IntegrationStep.pending.rawValue && ($0["pull_number"] as Int?) == request.pullRequest?.number
            }
            guard let queued else {
                unqueued.append(request)
                continue
            }
            var integration = Integration(row: queued)
            // A new commit of a fork's pull request waits again, unless it was approved before.
            let waits = try waitsForApproval(db, request)
            if waits != (integration.step == .awaitingApproval) {
                try db.execute(
                    "UPDATE integration SET awaiting_approval = ?, approved_by = NULL WHERE id = ?", waits ? 1 : nil as Int?, integration.id)
                (integration.step, integration.approvedBy) = (waits ? .awaitingApproval : .pending, nil)
            }
            if let commit = request.commit, commit != integration.commit {
                commits[commit, default: []].append(integration.id)
                integration.commit = commit
            }
            if let pullRequest = request.pullRequest, pullRequest != integration.pullRequest {
                try db.execute(
                    "UPDATE integration SET \(Integration.pullColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?",
                    Integration.pullArguments(pullRequest) + [integration.id])
                integration.pullRequest = pullRequest
            }
            outcomes[request.bot] = QueueOutcome(integration: integration, coalesced: true, superseded: superseded[request.bot] ?? [])
        }
        for (commit, ids) in commits {
            for chunk in batches(ids) {
                try db.execute("UPDATE integration SET commit_sha = ? WHERE id IN (\(placeholders(chunk.count)))", [commit] + bindable(chunk))
            }
        }
        var fresh: [QueueRequest] = []
        let latest = try latestIntegrations(db, of: unqueued)
        for request in unqueued {
            if let row = latest[request.bot],
                StoreRules.reaches(request, latest: Integration(row: row), cancelRequested: row.value("cancel_requested") != .null)
            {
                outcomes[request.bot] = QueueOutcome(integration: Integration(row: row), coalesced: true, superseded: superseded[request.bot] ?? [])
            } else {
                fresh.append(request)
            }
        }
        for integration in try insert(db, fresh, now: now) {
            outcomes[integration.bot] = QueueOutcome(integration: integration, coalesced: false, superseded: superseded[integration.bot] ?? [])
        }
        return try requests.map { request in
            guard let outcome = outcomes[request.bot] else { throw StoreError.query(what: "queueing", reason: "no outcome for '\(request.bot)'") }
            return outcome
        }
    }

    /// Queues a re-run: joined only with a queued re-run of the same integration, as much of it
    /// (a second press of the button), never with the branch's queue, whose head it is not.
    private static func queueRerun(_ db: any SQLConnection, _ request: QueueRequest, _ rerun: Rerun, now: Date) throws -> QueueOutcome {
        try lockBots(db, [request], now: now)
        let queued = try db.row(
            "SELECT * FROM integration WHERE bot = ? AND step = 'pending' AND rerun_of = ? AND rerun_only = ? AND cell_of IS NULL LIMIT 1",
            request.bot, rerun.number, rerun.only.rawValue)
        if let queued { return QueueOutcome(integration: Integration(row: queued), coalesced: true, superseded: []) }
        guard let inserted = try insert(db, [request], now: now).first else {
            throw StoreError.query(what: "queueing a re-run", reason: "no row returned")
        }
        return QueueOutcome(integration: inserted, coalesced: false, superseded: [])
    }

    /// Makes sure the requests' bots have rows, and locks them in name order: that orders this
    /// with claims and other queueings of the same bots on every host.
    private static func lockBots(_ db: any SQLConnection, _ requests: [QueueRequest], now: Date) throws {
        for chunk in batches(requests) {
            try db.execute(
                "INSERT INTO bot (name, branch, updated_at) VALUES \(placeholders(rows: chunk.count, of: 3)) ON CONFLICT (name) DO NOTHING",
                chunk.flatMap { [$0.bot, $0.branch, now] as [any SQLBindable] })
        }
        var locked = Set<String>()
        for chunk in batches(requests.map(\.bot)) {
            let sql = "SELECT name FROM bot WHERE name IN (\(placeholders(chunk.count))) ORDER BY name\(db.dialect.lock())"
            locked.formUnion(try db.rows(sql, bindable(chunk)).map { $0["name"] as String })
        }
        if let missing = requests.first(where: { !locked.contains($0.bot) }) { throw StoreError.notFound(what: "bot '\(missing.bot)'") }
    }

    /// Asks the running integrations of another commit than a push's to stop (in its lane:
    /// the branch, or its pull request); returns their ids by bot.
    private static func supersede(_ db: any SQLConnection, _ requests: [QueueRequest], active: [String: [SQLRow]]) throws -> [String: [Int64]] {
        var stopping: [IntegrationReason: [Int64]] = [:]
        for request in requests where request.cancelSuperseded {
            guard let commit = request.commit else { continue }
            let ids = (active[request.bot] ?? []).filter { row in
                let running: String? = row["commit_sha"]
                return (row["step"] as String) != IntegrationStep.pending.rawValue && running != nil && running != commit
                    && row.value("cancel_requested") == .null && (row["pull_number"] as Int?) == request.pullRequest?.number
            }.map { $0["id"] as Int64 }
            if !ids.isEmpty { stopping[.superseded(commit: commit), default: []] += ids }
        }
        var superseded: [String: [Int64]] = [:]
        for (reason, ids) in stopping {
            for chunk in batches(ids) {
                let sql =
                    "UPDATE integration SET cancel_requested = ? WHERE id IN (\(placeholders(chunk.count))) AND cancel_requested IS NULL RETURNING id, bot"
                for row in try db.rows(sql, [reason.sqlValue] + bindable(chunk)) { superseded[row["bot"], default: []].append(row["id"]) }
            }
        }
        if !superseded.isEmpty { try db.announce(.stop) }
        return superseded
    }

    /// Each request's bot's newest integration in the request's lane that left the queue, by bot:
    /// found through the (bot, number) index from its end, one statement per lane.
    private static func latestIntegrations(_ db: any SQLConnection, of requests: [QueueRequest]) throws -> [String: SQLRow] {
        var latest: [String: SQLRow] = [:]
        for (lane, requests) in Dictionary(grouping: requests, by: { $0.pullRequest?.number }) {
            for chunk in batches(requests) {
                let rows = try db.rows(
                    """
                    SELECT * FROM integration WHERE id IN (
                        SELECT (SELECT id FROM integration
                                WHERE integration.bot = bot.name AND step <> 'pending' AND pull_number IS NOT DISTINCT FROM ? AND bisection_id IS NULL AND cell_of IS NULL
                                    AND rerun_of IS NULL
                                ORDER BY number DESC LIMIT 1)
                        FROM bot WHERE name IN (\(placeholders(chunk.count))))
                    """, [lane as any SQLBindable] + chunk.map(\.bot))
                for row in rows { latest[row["bot"]] = row }
            }
        }
        return latest
    }

    /// Queues a new integration for each request, numbered after its bot's last.
    private static func insert(_ db: any SQLConnection, _ requests: [QueueRequest], now: Date) throws -> [Integration] {
        let columns =
            ["step", "bot", "number", "cause", "commit_sha", "branch", "queued_at", "rerun_of", "rerun_only", "awaiting_approval"]
            + Integration.pullColumns
        return try batches(requests).flatMap { chunk in
            var numbers: [String: Int] = [:]
            let numbering =
                "UPDATE bot SET next_number = next_number + 1 WHERE name IN (\(placeholders(chunk.count))) RETURNING name, next_number - 1 AS number"
            for row in try db.rows(numbering, bindable(chunk.map(\.bot))) { numbers[row["name"]] = row["number"] }
            var arguments: [any SQLBindable] = []
            for request in chunk {
                guard let number = numbers[request.bot] else { throw StoreError.notFound(what: "bot '\(request.bot)'") }
                arguments += [IntegrationStep.pending.rawValue, request.bot, number, request.cause.rawValue, request.commit, request.branch, now]
                arguments += [request.rerunOf?.number, request.rerunOf?.only.rawValue, try waitsForApproval(db, request) ? 1 : nil as Int?]
                arguments += Integration.pullArguments(request.pullRequest)
            }
            let inserted = try db.rows(
                """
                INSERT INTO integration (\(columns.joined(separator: ", "))) VALUES \(placeholders(rows: chunk.count, of: columns.count))
                RETURNING *
                """, arguments)
            guard inserted.count == chunk.count else {
                throw StoreError.query(what: "queueing", reason: "\(inserted.count) of \(chunk.count) rows returned")
            }
            return inserted.map(Integration.init(row:))
        }
    }
}

private func bindable(_ values: some Sequence<some SQLBindable>) -> [any SQLBindable] {
    values.map { $0 }
}

/// `items` in slices small enough that a statement's values stay within both engines' limits
/// (SQLite's 32,766 variables; PostgreSQL's 65,535 parameters): at most 500 rows of 15 values.
private func batches<T>(_ items: [T]) -> [ArraySlice<T>] {
    stride(from: 0, to: items.count, by: 500).map { items[$0..<min($0 + 500, items.count)] }
}
