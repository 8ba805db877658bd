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

/// The queue and the life of an integration (`IntegrationQueue`): queueing, claims, steps, a matrix's
/// cells, completion, requests to stop, recovery and retention.
struct QueueStore<Engine: StoreEngine>: IntegrationQueue, StoreRole {
    let engine: Engine
}

extension QueueStore {
    public func syncBots(_ bots: [BotState], now: Date) async throws(StoreError) {
        try await write("recording the loaded bots", notify: .queue) { db in
            try db.execute("UPDATE bot SET loaded = false")
            for bot in bots {
                try db.execute(
                    """
                    INSERT INTO bot (name, file, repository, branch, problems, loaded, updated_at, private) VALUES (?, ?, ?, ?, ?, true, ?, ?)
                    ON CONFLICT (name) DO UPDATE SET file = excluded.file, repository = excluded.repository, branch = excluded.branch,
                        problems = excluded.problems, loaded = true, updated_at = excluded.updated_at,
                        private = excluded.private OR (excluded.problems <> '[]' AND bot.private)
                    """, bot.name, bot.file, bot.repository, bot.branch, JSON.encode(bot.problems), now, bot.isPrivate)
            }
        }
    }

    public func enqueue(_ request: QueueRequest, now: Date) async throws(StoreError) -> QueueOutcome {
        try await write("queueing an integration of '\(request.bot)'", notify: .queue) { db in try Queueing.enqueue(db, request, now: now) }
    }

    public func claimNext(owner: String, toolchains: [String], now: Date) async throws(StoreError) -> Claim? {
        // A look outside any transaction comes first. Where hosts share the queue, every free one
        // hears of each integration queued, and all but one lose the race to claim it: taking and
        // skipping the claim's locks (for itself alone), the losers learn that they lost in one
        // round trip instead of a transaction's three (24 hosts draining 432 integrations queued
        // one at a time: 9,700 claims, all but 432 empty, became 7,900 looks and 1,450 claims).
        // On SQLite the look reads beside the writer, where an empty claim took the write lock
        // from the integration it had just started (a free executor looks again after each claim).
        let free = try await engine.statement("looking for a queued integration") { db in
            try !db.rows(
                """
                SELECT queued.id FROM integration AS queued JOIN bot ON bot.name = queued.bot
                WHERE \(Self.startable) AND \(Self.offered(toolchains)) LIMIT 1\(db.dialect.lockSkippingLocked(of: "queued, bot"))
                """, toolchains
            ).isEmpty
        }
        guard free else { return nil }
        return try await write("claiming a queued integration") { db in try Self.claimNext(db, owner: owner, toolchains: toolchains, now: now) }
    }

    public func enqueue(
        _ request: QueueRequest, claimingFor owner: String, toolchains: [String], now: Date
    ) async throws(StoreError) -> (outcome: QueueOutcome, claim: Claim?) {
        try await write("queueing an integration of '\(request.bot)' for a free executor", notify: .queue) { db in
            let outcome = try Queueing.enqueue(db, request, now: now)
            return (outcome, try Self.claimNext(db, owner: owner, toolchains: toolchains, now: now))
        }
    }

    public func claim(_ id: Int64, owner: String, now: Date) async throws(StoreError) -> Claim? {
        try await write("claiming integration \(id)") { db in
            guard
                let row = try db.row(
                    """
                    SELECT queued.id FROM integration AS queued JOIN bot ON bot.name = queued.bot
                    WHERE queued.id = ? AND \(Self.startable)
                    \(db.dialect.lock(of: "queued, bot"))
                    """, id)
            else { return nil }
            return try Self.start(db, row, owner: owner, now: now)
        }
    }

    public func advance(_ claim: Claim, to step: IntegrationStep, now: Date) async throws(StoreError) {
        try await write("recording step \(step.rawValue)") { db in
            try Self.checkClaim(db, claim)
            try Self.closeSteps(db, claim.id, now: now)
            try db.execute("UPDATE integration SET step = ? WHERE id = ?", step.rawValue, claim.id)
            if step != .completed {
                try db.execute(
                    """
                    INSERT INTO step (integration_id, name, started_at) VALUES (?, ?, ?)
                    ON CONFLICT (integration_id, name) DO UPDATE SET started_at = excluded.started_at, duration = NULL
                    """, claim.id, step.rawValue, now)
            }
        }
    }

    public func recordProgress(_ claim: Claim, _ progress: TestProgress) async throws(StoreError) {
        try await write("recording the tests so far") { db in
            try Self.checkClaim(db, claim)
            try db.execute("UPDATE integration SET progress_tests = ?, progress_failed = ? WHERE id = ?", progress.tests, progress.failed, claim.id)
        }
    }

    public func setCommit(_ claim: Claim, commit: String) async throws(StoreError) {
        try await write("recording the commit") { db in
            try Self.checkClaim(db, claim)
            try db.execute("UPDATE integration SET commit_sha = ? WHERE id = ?", commit, claim.id)
        }
    }

    public func requestCancel(_ id: Int64, reason: IntegrationReason) async throws(StoreError) {
        try await write("asking an integration to stop", notify: .stop) { db in
            try db.execute(
                "UPDATE integration SET cancel_requested = ? WHERE id = ? AND step <> 'completed' AND cancel_requested IS NULL", reason, id)
        }
    }

    public func stopRequests(for claims: [Claim]) async throws(StoreError) -> [CancelRequest] {
        guard !claims.isEmpty else { return [] }
        let rows = try await readStatement("reading cancel requests") { db in
            try db.rows(
                "SELECT id, step, claim_token, reason, cancel_requested FROM integration WHERE id IN (\(placeholders(claims.count)))",
                claims.map(\.id))
        }
        return claims.compactMap { claim in
            let row = rows.first { $0["id"] == claim.id }
            return StoreRules.stopRequest(for: claim, row: row)
        }
    }

    public func cancel(bot: String, number: Int, reason: IntegrationReason, now: Date) async throws(StoreError) -> Integration? {
        try await write("canceling integration \(number) of '\(bot)'", notify: .queue) { db in
            let queued = try db.rows(
                """
                UPDATE integration SET step = 'completed', result = 'canceled', reason = ?, ended_at = ?
                WHERE bot = ? AND number = ? AND step = 'pending' AND cell_of IS NULL AND bisection_id IS NULL RETURNING *
                """, reason, now, bot, number
            ).map(Integration.init(row:))
            if let integration = queued.first { return integration }
            let running = try db.rows(
                """
                UPDATE integration SET cancel_requested = ?
                WHERE bot = ? AND number = ? AND step <> 'completed' AND cell_of IS NULL AND bisection_id IS NULL AND cancel_requested IS NULL
                RETURNING *
                """, reason, bot, number
            ).map(Integration.init(row:))
            if !running.isEmpty { try db.announce(.stop) }
            return running.first
        }
    }
}

extension StoreRole {
    /// Whether `queued` (an integration row) may start: no other integration of its bot runs,
    /// but that the bisect integrations of one bisection run beside each other, and a matrix's
    /// cells beside each other and their integration, each in a workspace of its own.
    static var startable: String {
        """
        queued.step = 'pending' AND queued.step <> 'completed' AND queued.awaiting_approval IS NULL AND NOT EXISTS (
            SELECT 1 FROM integration AS running
            WHERE running.bot = queued.bot AND running.step IN \(runningSteps) AND running.step <> 'completed'
                AND (queued.bisection_id IS NULL OR running.bisection_id IS NULL OR running.bisection_id <> queued.bisection_id)
                AND (queued.cell_of IS NULL OR (running.number <> queued.cell_of AND (running.cell_of IS NULL OR running.cell_of <> queued.cell_of))))
        """
    }

    /// Starts the queued integration `queued` (its `id`), in workspace `slot` when given. A bisect
    /// integration or a cell takes one of its bot's workspaces on this host that none of its
    /// bisection's (or its matrix's) integrations running here holds (`workspaceSlot`); its
    /// own integration, which waits for its cells, holds none.
    static func start(_ db: any SQLConnection, _ queued: SQLRow, owner: String, slot given: Int? = nil, now: Date) throws -> Claim? {
        let (id, host, token): (Int64, String, String) = (queued["id"], ProcessOwner.host(of: owner), StoreRules.newToken())
        var slot = given
        // What runs beside it of its bot on this host: its bisection's rounds, its matrix's cells
        // (and those of each bisect integration of a matrix).
        if let row = try db.row("SELECT bot, bisection_id, cell_of, cell FROM integration WHERE id = ?", id),
            (row["bisection_id"] as Int64?) != nil || (row["cell_of"] as Int?) != nil
        {
            let bot: String = row["bot"]
            let cell: String? = row["cell"]
            // One choice of a bot's workspaces at a time: a cell its integration's executor claims
            // and one another executor claims must not both take the same free one.
            _ = try db.rows("SELECT name FROM bot WHERE name = ?\(db.dialect.lock())", bot)
            let running =
                "SELECT workspace_slot FROM integration WHERE bot = ? AND host = ? AND step IN \(runningSteps) AND step <> 'completed'"
            let used =
                try (row["cell_of"] as Int?).map { try db.rows(running + " AND number <> ?", bot, host, $0) } ?? db.rows(running, bot, host)
            let taken = Set(used.map { $0["workspace_slot"] as Int? ?? 0 })
            slot = try Self.workspaceSlot(db, bot: bot, host: host, cell: cell, given: given, taken: taken)
        }
        guard
            let row = try db.row(
                """
                UPDATE integration SET step = 'checkout', started_at = ?, progress_tests = NULL, progress_failed = NULL, owner = ?, host = ?, claim_token = ?, workspace_slot = ?
                WHERE id = ? RETURNING *
                """, now, owner, host, token, slot, id)
        else { return nil }
        try db.execute("INSERT INTO step (integration_id, name, started_at) VALUES (?, 'checkout', ?)", id, now)
        return Claim(integration: Integration(row: row), token: token)
    }

    /// Which free workspace a cell or bisect integration takes: a cell the one where the same cell
    /// last ran on this host (warm for it: cells differ in sanitizer and toolchain, whose builds
    /// would replace each other's products in one `.build`), else one no cell has used (a new
    /// workspace, which starts from the cell's snapshot), else `given`, else the first free.
    static func workspaceSlot(_ db: any SQLConnection, bot: String, host: String, cell: String?, given: Int?, taken: Set<Int>) throws -> Int {
        var lastCell: [Int: String] = [:]
        if cell != nil {
            let recent = try db.rows(
                """
                SELECT workspace_slot, cell FROM integration WHERE bot = ? AND host = ? AND step = 'completed' AND cell IS NOT NULL
                    AND workspace_slot IS NOT NULL ORDER BY id DESC LIMIT 100
                """, bot, host)
            for row in recent {
                let slot: Int = row["workspace_slot"]
                if lastCell[slot] == nil { lastCell[slot] = row["cell"] }
            }
        }
        let free = (0...).lazy.filter { !taken.contains($0) }
        if let cell, let warm = lastCell.filter({ $0.value == cell && !taken.contains($0.key) }).keys.min() { return warm }
        if cell != nil, let new = free.first(where: { lastCell[$0] == nil }) { return new }
        if let given, !taken.contains(given) { return given }
        return free.first { _ in true } ?? 0
    }

    /// Throws `claimLost` unless `claim` still holds its integration (not completed, same token),
    /// whose row it locks.
    static func checkClaim(_ db: any SQLConnection, _ claim: Claim) throws {
        let row = try db.row("SELECT step, claim_token, reason FROM integration WHERE id = ?\(db.dialect.lock())", claim.id)
        if let refusal = StoreRules.refusal(of: claim, row: row) {
            throw refusal
        }
    }
}

extension QueueStore {
    /// `claimNext` within the caller's transaction.
    static func claimNext(_ db: any SQLConnection, owner: String, toolchains: [String], now: Date) throws -> Claim? {
        // The queued row and its bot's row are locked together, skipping those another host
        // holds: a bot being queued or claimed elsewhere waits for the next look. A matrix's
        // cells come first (their integration holds an executor, waiting for them); bisect
        // integrations come after every other: they only use executors nothing else wants.
        guard
            let row = try db.rows(
                """
                SELECT queued.id FROM integration AS queued JOIN bot ON bot.name = queued.bot
                WHERE \(Self.startable) AND \(offered(toolchains))
                ORDER BY queued.cell_of IS NULL, queued.bisection_id IS NOT NULL, queued.queued_at, queued.id
                LIMIT 1\(db.dialect.lockSkippingLocked(of: "queued, bot"))
                """, toolchains
            ).first
        else { return nil }
        return try Self.start(db, row, owner: owner, now: now)
    }

    /// A cell runs only where its toolchain is.
    static func offered(_ toolchains: [String]) -> String {
        "(queued.cell_of IS NULL OR queued.toolchain IN (\(placeholders(toolchains.count))))"
    }
}

extension StoreRole {
    static func closeSteps(_ db: any SQLConnection, _ id: Int64, now: Date) throws {
        try db.execute(
            "UPDATE step SET duration = CASE WHEN ? > started_at THEN ? - started_at ELSE 0 END WHERE integration_id = ? AND duration IS NULL",
            now, now, id)
    }
}
