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

/// A matrix's cells: each an integration row of its own, queued by the integration it is a cell
/// of once that one has its commit, claimed by any executor whose host offers its toolchain
/// (its own integration's executor among them), and read back when all have ended.
extension QueueStore {
    public func addCells(_ cells: [Cell], to claim: Claim, now: Date) async throws(StoreError) {
        guard !cells.isEmpty else { return }
        try await write("queueing the cells of integration \(claim.number)", notify: .queue) { db in
            try Self.checkClaim(db, claim)
            guard let row = try db.row("SELECT * FROM integration WHERE id = ?", claim.id) else {
                throw StoreError.notFound(what: "integration \(claim.number) of '\(claim.bot)'")
            }
            let integration = Integration(row: row)
            // Numbered below zero, from the bot's lowest: only the integration a bot runs adds
            // cells, so no two transactions pick the same numbers.
            let lowest: Int = try db.value("SELECT min(number) FROM integration WHERE bot = ?", claim.bot) ?? 0
            let columns =
                [
                    "step", "bot", "number", "cause", "commit_sha", "branch", "queued_at", "notified_at", "cell_of", "cell", "toolchain", "rerun_of",
                    "rerun_only",
                ]
                + Integration.pullColumns
            var arguments: [any SQLBindable] = []
            for (offset, cell) in cells.enumerated() {
                arguments += [
                    "pending", claim.bot, min(lowest, 0) - 1 - offset, integration.cause.rawValue, integration.commit, integration.branch, now, now,
                    integration.number, cell.name, cell.toolchain, integration.rerunOf?.number, integration.rerunOf?.only.rawValue,
                ]
                arguments += Integration.pullArguments(integration.pullRequest)
            }
            try db.execute(
                "INSERT INTO integration (\(columns.joined(separator: ", "))) VALUES \(placeholders(rows: cells.count, of: columns.count))",
                arguments)
        }
    }

    public func claimCell(of claim: Claim, owner: String, toolchains: [String], now: Date) async throws(StoreError) -> Claim? {
        try await write("claiming a cell of integration \(claim.number)") { db in
            guard
                let row = try db.rows(
                    """
                    SELECT id FROM integration WHERE bot = ? AND cell_of = ? AND step = 'pending' AND step <> 'completed'
                        AND toolchain IN (\(placeholders(toolchains.count)))
                    ORDER BY number DESC LIMIT 1\(db.dialect.lockSkippingLocked())
                    """, [claim.bot, claim.number] as [any SQLBindable] + toolchains
                ).first
            else { return nil }
            return try Self.start(db, row, owner: owner, slot: claim.workspaceSlot ?? 0, now: now)
        }
    }

    public func cells(of claim: Claim) async throws(StoreError) -> [Integration] {
        try await readStatement("reading the cells of integration \(claim.number)") { db in
            try Self.cells(db, bot: claim.bot, number: claim.number)
        }
    }

    public func cellOutcomes(of claim: Claim) async throws(StoreError) -> [CellOutcome] {
        try await read("reading what the cells of integration \(claim.number) found") { db in
            try db.rows("SELECT * FROM integration WHERE bot = ? AND cell_of = ? ORDER BY number DESC", claim.bot, claim.number).map { row in
                let cell = Integration(row: row)
                return CellOutcome(
                    cell: cell, issues: try Self.issues(db, integration: cell.id),
                    tests: try db.rows("SELECT * FROM test_case WHERE integration_id = ? ORDER BY id", cell.id).map(TestCase.init(row:)),
                    dependencies: JSON.decode([DependencyPin].self, from: row["dependencies"], default: []))
            }
        }
    }

    public func completeCell(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration {
        try await write("completing a cell", notify: .queue) { db in
            try Self.checkClaim(db, claim)
            try Self.closeSteps(db, claim.id, now: now)
            let summary = outcome.summary
            guard
                let row = try db.row(
                    """
                    UPDATE integration SET step = 'completed', result = ?, reason = ?, ended_at = ?, started_at = coalesce(started_at, ?),
                        issue_counts = ?, tests = ?, coverage = ?, swift_version = ?, claim_token = NULL, dependencies = ?, patch_coverage = ?
                    WHERE id = ? RETURNING *
                    """, outcome.result.rawValue, outcome.reason, now, now, IssueCounts.encode(summary.issues), summary.tests, summary.coverage,
                    outcome.swiftVersion, outcome.dependencies.isEmpty ? nil : JSON.encode(outcome.dependencies),
                    outcome.patchCoverage.map(JSON.encode), claim.id)
            else { throw StoreError.notFound(what: "cell \(claim.cell?.name ?? "") of integration \(claim.cellOf ?? 0)") }
            try Self.insert(db, issues: outcome.issues, tests: outcome.tests, into: claim.id)
            return Integration(row: row)
        }
    }

    public func endCells(of claim: Claim, reason: IntegrationReason, now: Date) async throws(StoreError) {
        try await write("ending the cells of integration \(claim.number)", notify: .stop) { db in
            try Self.endCells(db, bot: claim.bot, number: claim.number, lacking: nil, reason: reason, now: now)
        }
    }

    public func endCellsWithoutHost(of claim: Claim, offered: Set<String>, now: Date) async throws(StoreError) -> Int {
        try await write("ending the cells no host can run", notify: .queue) { db in
            try Self.endCells(db, bot: claim.bot, number: claim.number, lacking: offered, reason: nil, now: now)
        }
    }

    public func offeredToolchains() async throws(StoreError) -> Set<String> {
        try await readStatement("reading the toolchains hosts offer") { db in
            var offered: Set<String> = []
            for row in try db.rows("SELECT toolchains FROM host WHERE last_heard + lease >= \(db.dialect.now) AND executors > 0") {
                offered.formUnion(JSON.decode([String].self, from: row["toolchains"], default: [Matrix.defaultToolchain]))
            }
            return offered
        }
    }
}

extension RecordStore {
    public func cells(bot: String, of numbers: [Int]) async throws(StoreError) -> [Int: [Integration]] {
        guard !numbers.isEmpty else { return [:] }
        let rows = try await readStatement("reading the cells of '\(bot)'") { db in
            try db.rows(
                "SELECT * FROM integration WHERE bot = ? AND cell_of IN (\(placeholders(numbers.count))) ORDER BY number DESC",
                [bot as any SQLBindable] + numbers)
        }
        return Dictionary(grouping: rows.map(Integration.init(row:))) { $0.cellOf ?? 0 }
    }
}

extension StoreRole {
    static func cells(_ db: any SQLConnection, bot: String, number: Int) throws -> [Integration] {
        try db.rows("SELECT * FROM integration WHERE bot = ? AND cell_of = ? ORDER BY number DESC", bot, number).map(Integration.init(row:))
    }

    /// Ends the queued cells of integration `number` as canceled: with `offered`, those whose
    /// toolchain it lacks, each saying so (`IntegrationReason.noHost`); without, every queued one with
    /// `reason`, and its running cells are asked to stop. Returns how many queued cells it ended.
    @discardableResult
    static func endCells(
        _ db: any SQLConnection, bot: String, number: Int, lacking offered: Set<String>?, reason: IntegrationReason?, now: Date
    ) throws -> Int {
        let queued = try db.rows(
            "SELECT id, toolchain FROM integration WHERE bot = ? AND cell_of = ? AND step = 'pending' AND step <> 'completed'\(db.dialect.lock())",
            bot, number)
        var ended = 0
        for row in queued {
            let toolchain: String = row["toolchain"] ?? Matrix.defaultToolchain
            if let offered, offered.contains(toolchain) { continue }
            try db.execute(
                """
                UPDATE integration SET step = 'completed', result = 'canceled', reason = ?, ended_at = ?, issue_counts = '{}', tests = 0
                WHERE id = ?
                """, offered == nil ? reason : IntegrationReason.noHost(toolchain: toolchain), now, row["id"] as Int64)
            ended += 1
        }
        if offered == nil {
            try db.execute(
                """
                UPDATE integration SET cancel_requested = ?
                WHERE bot = ? AND cell_of = ? AND step NOT IN ('pending', 'completed') AND step <> 'completed' AND cancel_requested IS NULL
                """, reason, bot, number)
        }
        return ended
    }
}
