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
import KilnStore

/// A real SQLite store whose named operations fail on cue, as a database that went away would
/// answer them: for tests of what Kiln does when a read or write it depends on fails (it must
/// say what it lost, never decide as if the call had answered).
///
/// Every operation of the roles an integration uses is the real one, except those named in
/// `failing`, which throw `StoreError.query` before reaching the database.
public struct FailingStore: IntegrationQueue, IntegrationRecords, LogsAndAssets {
    public let base: SQLiteStore
    /// The names of the operations that fail (`"testHistory"`, `"endCells"`, …).
    public let failing: Set<String>

    public init(_ base: SQLiteStore, failing: Set<String>) {
        self.base = base
        self.failing = failing
    }

    private func fail(_ operation: String) throws(StoreError) {
        if failing.contains(operation) { throw StoreError.query(what: operation, reason: "the database is away (failing on cue)") }
    }

    // MARK: IntegrationQueue
    public func syncBots(_ bots: [BotState], now: Date) async throws(StoreError) {
        try fail("syncBots")
        return try await base.syncBots(bots, now: now)
    }

    public func enqueue(_ request: QueueRequest, now: Date) async throws(StoreError) -> QueueOutcome {
        try fail("enqueue")
        return try await base.enqueue(request, now: now)
    }

    public func enqueue(
        _ request: QueueRequest, claimingFor owner: String, toolchains: [String], now: Date
    ) async throws(StoreError) -> (outcome: QueueOutcome, claim: Claim?) {
        try fail("enqueue")
        return try await base.enqueue(request, claimingFor: owner, toolchains: toolchains, now: now)
    }

    public func claimNext(owner: String, toolchains: [String], now: Date) async throws(StoreError) -> Claim? {
        try fail("claimNext")
        return try await base.claimNext(owner: owner, toolchains: toolchains, now: now)
    }

    public func claim(_ id: Int64, owner: String, now: Date) async throws(StoreError) -> Claim? {
        try fail("claim")
        return try await base.claim(id, owner: owner, now: now)
    }

    public func advance(_ claim: Claim, to step: IntegrationStep, now: Date) async throws(StoreError) {
        try fail("advance")
        return try await base.advance(claim, to: step, now: now)
    }

    public func recordProgress(_ claim: Claim, _ progress: TestProgress) async throws(StoreError) {
        try fail("recordProgress")
        return try await base.recordProgress(claim, progress)
    }

    public func setCommit(_ claim: Claim, commit: String) async throws(StoreError) {
        try fail("setCommit")
        return try await base.setCommit(claim, commit: commit)
    }

    public func complete(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration {
        try fail("complete")
        return try await base.complete(claim, outcome: outcome, now: now)
    }

    public func addCells(_ cells: [Cell], to claim: Claim, now: Date) async throws(StoreError) {
        try fail("addCells")
        return try await base.addCells(cells, to: claim, now: now)
    }

    public func claimCell(of claim: Claim, owner: String, toolchains: [String], now: Date) async throws(StoreError) -> Claim? {
        try fail("claimCell")
        return try await base.claimCell(of: claim, owner: owner, toolchains: toolchains, now: now)
    }

    public func cells(of claim: Claim) async throws(StoreError) -> [Integration] {
        try fail("cells")
        return try await base.cells(of: claim)
    }

    public func cellOutcomes(of claim: Claim) async throws(StoreError) -> [CellOutcome] {
        try fail("cellOutcomes")
        return try await base.cellOutcomes(of: claim)
    }

    public func completeCell(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration {
        try fail("completeCell")
        return try await base.completeCell(claim, outcome: outcome, now: now)
    }

    public func endCells(of claim: Claim, reason: IntegrationReason, now: Date) async throws(StoreError) {
        try fail("endCells")
        return try await base.endCells(of: claim, reason: reason, now: now)
    }

    public func endCellsWithoutHost(of claim: Claim, offered: Set<String>, now: Date) async throws(StoreError) -> Int {
        try fail("endCellsWithoutHost")
        return try await base.endCellsWithoutHost(of: claim, offered: offered, now: now)
    }

    public func offeredToolchains() async throws(StoreError) -> Set<String> {
        try fail("offeredToolchains")
        return try await base.offeredToolchains()
    }

    public func requestCancel(_ id: Int64, reason: IntegrationReason) async throws(StoreError) {
        try fail("requestCancel")
        return try await base.requestCancel(id, reason: reason)
    }

    public func cancel(bot: String, number: Int, reason: IntegrationReason, now: Date) async throws(StoreError) -> Integration? {
        try fail("cancel")
        return try await base.cancel(bot: bot, number: number, reason: reason, now: now)
    }

    public func approve(bot: String, number: Int, by approver: String, now: Date) async throws(StoreError) -> Integration? {
        try fail("approve")
        return try await base.approve(bot: bot, number: number, by: approver, now: now)
    }

    public func awaitingApproval(bots: [String]) async throws(StoreError) -> [Integration] {
        try fail("awaitingApproval")
        return try await base.awaitingApproval(bots: bots)
    }

    public func stopRequests(for claims: [Claim]) async throws(StoreError) -> [CancelRequest] {
        try fail("stopRequests")
        return try await base.stopRequests(for: claims)
    }

    public func recoverAbandoned(isAlive: @Sendable (String) -> Bool, now: Date) async throws(StoreError) -> [Integration] {
        try fail("recoverAbandoned")
        return try await base.recoverAbandoned(isAlive: isAlive, now: now)
    }

    public func applyRetention(keep: Int, bot: String?) async throws(StoreError) -> Int {
        try fail("applyRetention")
        return try await base.applyRetention(keep: keep, bot: bot)
    }

    // MARK: IntegrationRecords
    public func cells(bot: String, of numbers: [Int]) async throws(StoreError) -> [Int: [Integration]] {
        try fail("cells")
        return try await base.cells(bot: bot, of: numbers)
    }

    public func botOverviews() async throws(StoreError) -> [BotOverview] {
        try fail("botOverviews")
        return try await base.botOverviews()
    }

    public func integrations(bot: String, limit: Int, before: Int?) async throws(StoreError) -> [Integration] {
        try fail("integrations")
        return try await base.integrations(bot: bot, limit: limit, before: before)
    }

    public func integrations(bot: String, matching filter: HistoryFilter, limit: Int, before: Int?) async throws(StoreError) -> [Integration] {
        try fail("integrations")
        return try await base.integrations(bot: bot, matching: filter, limit: limit, before: before)
    }

    public func tests(bot: String, containing text: String, limit: Int) async throws(StoreError) -> [TestName] {
        try fail("tests")
        return try await base.tests(bot: bot, containing: text, limit: limit)
    }

    public func integration(bot: String, number: Int) async throws(StoreError) -> IntegrationDetail? {
        try fail("integration")
        return try await base.integration(bot: bot, number: number)
    }

    public func quarantinedTests(bot: String, limit: Int, results: Int) async throws(StoreError) -> [TestHistory] {
        try fail("quarantinedTests")
        return try await base.quarantinedTests(bot: bot, limit: limit, results: results)
    }

    public func bisection(of integrationID: Int64) async throws(StoreError) -> Bisection? {
        try fail("bisection")
        return try await base.bisection(of: integrationID)
    }

    public func bisection(id: Int64) async throws(StoreError) -> (bisection: Bisection, bisected: Int)? {
        try fail("bisection")
        return try await base.bisection(id: id)
    }

    public func testHistory(bot: String, suite: String, name: String, limit: Int) async throws(StoreError) -> TestHistory {
        try fail("testHistory")
        return try await base.testHistory(bot: bot, suite: suite, name: name, limit: limit)
    }

    public func predecessor(_ kind: Predecessor, bot: String, before number: Int?) async throws(StoreError) -> Integration? {
        try fail("predecessor")
        return try await base.predecessor(kind, bot: bot, before: number)
    }

    public func pullRequests(bot: String, includeClosed: Bool) async throws(StoreError) -> [PullRequestOverview] {
        try fail("pullRequests")
        return try await base.pullRequests(bot: bot, includeClosed: includeClosed)
    }

    public func statistics(durationBuckets: [Double]) async throws(StoreError) -> StoreStatistics {
        try fail("statistics")
        return try await base.statistics(durationBuckets: durationBuckets)
    }

    // MARK: LogsAndAssets
    public func logLocation(bot: String, number: Int) -> String? {
        base.logLocation(bot: bot, number: number)
    }

    public func logSink(for claim: Claim) -> (any LogSink)? {
        base.logSink(for: claim)
    }

    public func readLog(bot: String, number: Int, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]? {
        try fail("readLog")
        return try await base.readLog(bot: bot, number: number, from: offset, limit: limit)
    }

    public func logSize(bot: String, number: Int) async throws(StoreError) -> Int? {
        try fail("logSize")
        return try await base.logSize(bot: bot, number: number)
    }

    public func storeAsset(_ asset: Asset, from path: String, for claim: Claim) async throws(StoreError) {
        try fail("storeAsset")
        return try await base.storeAsset(asset, from: path, for: claim)
    }

    public func asset(bot: String, number: Int, name: String) async throws(StoreError) -> Asset? {
        try fail("asset")
        return try await base.asset(bot: bot, number: number, name: name)
    }

    public func readAsset(bot: String, number: Int, name: String, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8] {
        try fail("readAsset")
        return try await base.readAsset(bot: bot, number: number, name: name, from: offset, limit: limit)
    }

    public func assetLocation(bot: String, number: Int, name: String) -> String? {
        base.assetLocation(bot: bot, number: number, name: name)
    }

    public func latestAsset(bot: String, name: String, results: Set<IntegrationResult>) async throws(StoreError) -> Int? {
        try fail("latestAsset")
        return try await base.latestAsset(bot: bot, name: name, results: results)
    }
}
