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

/// The store: the thirteen roles of `Store`, each run by its own store over one engine
/// (`QueueStore`, `RecordStore`, `HostStore`, `LogStore`, `WebhookStore`, `OutboxStore`,
/// `MailStore`, `StatusStore`, `ReviewStore`, `AccessStore`, `SnapshotStore`, `AuditStore`; the change feed is
/// the engine's). `SQLiteStore` (the embedded default) and `PostgresStore` (several hosts) are this
/// class on their engine; `StoreLocation.open` picks one, and no caller sees which it got.
///
/// Every operation is SQL both engines understand and the read → decide → write logic around it,
/// written once in its role's store. Tables and columns have the same names on both engines
/// (`Migrations`). Each operation is one transaction: it sees and leaves the store consistent,
/// with no state kept in memory between calls.
public final class DatabaseStore<Engine: StoreEngine>: Store, StoreRole {
    public let engine: Engine
    let queueStore: QueueStore<Engine>
    let recordStore: RecordStore<Engine>
    let hostStore: HostStore<Engine>
    let logStore: LogStore<Engine>
    let webhookStore: WebhookStore<Engine>
    let outboxStore: OutboxStore<Engine>
    let mailStore: MailStore<Engine>
    let statusStore: StatusStore<Engine>
    let reviewStore: ReviewStore<Engine>
    let accessStore: AccessStore<Engine>
    let snapshotStore: SnapshotStore<Engine>
    let auditStore: AuditStore<Engine>
    let shardStore: ShardStore<Engine>

    init(engine: Engine) {
        self.engine = engine
        var shipper: LogShipper?
        if engine.logsInDatabase { shipper = LogShipper { chunks throws(StoreError) in try await LogStore.appendChunks(engine, chunks) } }
        (queueStore, recordStore, hostStore) = (QueueStore(engine: engine), RecordStore(engine: engine), HostStore(engine: engine))
        (logStore, webhookStore) = (LogStore(engine: engine, logShipper: shipper), WebhookStore(engine: engine))
        (outboxStore, mailStore) = (OutboxStore(engine: engine), MailStore(engine: engine))
        (statusStore, reviewStore) = (StatusStore(engine: engine), ReviewStore(engine: engine))
        (accessStore, snapshotStore, auditStore) = (AccessStore(engine: engine), SnapshotStore(engine: engine), AuditStore(engine: engine))
        shardStore = ShardStore(engine: engine)
    }

    /// The engine's background work and the log shipper, until the task is canceled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.engine.run() }
            if let logShipper = logStore.logShipper { group.addTask { await logShipper.run() } }
            while !Task.isCancelled { await MonotonicClock.system.sleep(for: .seconds(3600)) }
        }
    }

    // MARK: ChangeFeed
    public func changes() -> AsyncStream<Void> { engine.hub.subscribe(to: .data) }
    public func queueChanges() -> AsyncStream<Void> { engine.hub.subscribe(to: .queue) }
    public func stopChanges() -> AsyncStream<Void> { engine.hub.subscribe(to: .stop) }
    public func logChanges() -> AsyncStream<Void> { engine.hub.subscribe(to: .log) }

    // MARK: IntegrationQueue
    public func syncBots(_ bots: [BotState], now: Date) async throws(StoreError) { try await queueStore.syncBots(bots, now: now) }
    public func enqueue(_ request: QueueRequest, now: Date) async throws(StoreError) -> QueueOutcome {
        try await queueStore.enqueue(request, now: now)
    }
    public func claimNext(owner: String, toolchains: [String], now: Date) async throws(StoreError) -> Claim? {
        try await queueStore.claimNext(owner: owner, toolchains: toolchains, now: now)
    }
    public func enqueue(
        _ request: QueueRequest, claimingFor owner: String, toolchains: [String], now: Date
    ) async throws(StoreError) -> (outcome: QueueOutcome, claim: Claim?) {
        try await queueStore.enqueue(request, claimingFor: owner, toolchains: toolchains, now: now)
    }
    public func claim(_ id: Int64, owner: String, now: Date) async throws(StoreError) -> Claim? {
        try await queueStore.claim(id, owner: owner, now: now)
    }
    public func advance(_ claim: Claim, to step: IntegrationStep, now: Date) async throws(StoreError) {
        try await queueStore.advance(claim, to: step, now: now)
    }
    public func setCommit(_ claim: Claim, commit: String) async throws(StoreError) { try await queueStore.setCommit(claim, commit: commit) }
    public func recordProgress(_ claim: Claim, _ progress: TestProgress) async throws(StoreError) {
        try await queueStore.recordProgress(claim, progress)
    }
    @discardableResult
    public func complete(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration {
        try await queueStore.complete(claim, outcome: outcome, now: now)
    }
    public func addCells(_ cells: [Cell], to claim: Claim, now: Date) async throws(StoreError) {
        try await queueStore.addCells(cells, to: claim, now: now)
    }
    public func claimCell(of claim: Claim, owner: String, toolchains: [String], now: Date) async throws(StoreError) -> Claim? {
        try await queueStore.claimCell(of: claim, owner: owner, toolchains: toolchains, now: now)
    }
    public func cells(of claim: Claim) async throws(StoreError) -> [Integration] { try await queueStore.cells(of: claim) }
    public func cellOutcomes(of claim: Claim) async throws(StoreError) -> [CellOutcome] { try await queueStore.cellOutcomes(of: claim) }
    @discardableResult
    public func completeCell(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration {
        try await queueStore.completeCell(claim, outcome: outcome, now: now)
    }
    public func endCells(of claim: Claim, reason: IntegrationReason, now: Date) async throws(StoreError) {
        try await queueStore.endCells(of: claim, reason: reason, now: now)
    }
    @discardableResult
    public func endCellsWithoutHost(of claim: Claim, offered: Set<String>, now: Date) async throws(StoreError) -> Int {
        try await queueStore.endCellsWithoutHost(of: claim, offered: offered, now: now)
    }
    public func offeredToolchains() async throws(StoreError) -> Set<String> { try await queueStore.offeredToolchains() }
    public func requestCancel(_ id: Int64, reason: IntegrationReason) async throws(StoreError) {
        try await queueStore.requestCancel(id, reason: reason)
    }
    public func cancel(bot: String, number: Int, reason: IntegrationReason, now: Date) async throws(StoreError) -> Integration? {
        try await queueStore.cancel(bot: bot, number: number, reason: reason, now: now)
    }
    public func approve(bot: String, number: Int, by approver: String, now: Date) async throws(StoreError) -> Integration? {
        try await queueStore.approve(bot: bot, number: number, by: approver, now: now)
    }
    public func awaitingApproval(bots: [String]) async throws(StoreError) -> [Integration] {
        try await queueStore.awaitingApproval(bots: bots)
    }
    public func stopRequests(for claims: [Claim]) async throws(StoreError) -> [CancelRequest] { try await queueStore.stopRequests(for: claims) }
    public func recoverAbandoned(isAlive: @Sendable (String) -> Bool, now: Date) async throws(StoreError) -> [Integration] {
        try await queueStore.recoverAbandoned(isAlive: isAlive, now: now)
    }
    public func applyRetention(keep: Int, bot: String?) async throws(StoreError) -> Int { try await queueStore.applyRetention(keep: keep, bot: bot) }

    // MARK: IntegrationRecords
    public func cells(bot: String, of numbers: [Int]) async throws(StoreError) -> [Int: [Integration]] {
        try await recordStore.cells(bot: bot, of: numbers)
    }
    public func botOverviews() async throws(StoreError) -> [BotOverview] { try await recordStore.botOverviews() }
    public func integrations(bot: String, limit: Int, before: Int?) async throws(StoreError) -> [Integration] {
        try await recordStore.integrations(bot: bot, limit: limit, before: before)
    }
    public func integrations(bot: String, matching filter: HistoryFilter, limit: Int, before: Int?) async throws(StoreError) -> [Integration] {
        try await recordStore.integrations(bot: bot, matching: filter, limit: limit, before: before)
    }
    public func tests(bot: String, containing text: String, limit: Int) async throws(StoreError) -> [TestName] {
        try await recordStore.tests(bot: bot, containing: text, limit: limit)
    }
    public func integration(bot: String, number: Int) async throws(StoreError) -> IntegrationDetail? {
        try await recordStore.integration(bot: bot, number: number)
    }
    public func quarantinedTests(bot: String, limit: Int, results: Int) async throws(StoreError) -> [TestHistory] {
        try await recordStore.quarantinedTests(bot: bot, limit: limit, results: results)
    }
    public func bisection(of integrationID: Int64) async throws(StoreError) -> Bisection? { try await recordStore.bisection(of: integrationID) }
    public func bisection(id: Int64) async throws(StoreError) -> (bisection: Bisection, bisected: Int)? { try await recordStore.bisection(id: id) }
    public func testHistory(bot: String, suite: String, name: String, limit: Int) async throws(StoreError) -> TestHistory {
        try await recordStore.testHistory(bot: bot, suite: suite, name: name, limit: limit)
    }
    public func predecessor(_ kind: Predecessor, bot: String, before number: Int?) async throws(StoreError) -> Integration? {
        try await recordStore.predecessor(kind, bot: bot, before: number)
    }
    public func pullRequests(bot: String, includeClosed: Bool) async throws(StoreError) -> [PullRequestOverview] {
        try await recordStore.pullRequests(bot: bot, includeClosed: includeClosed)
    }
    public func statistics(durationBuckets: [Double]) async throws(StoreError) -> StoreStatistics {
        try await recordStore.statistics(durationBuckets: durationBuckets)
    }

    // MARK: HostRegistry
    @discardableResult
    public func heartbeat(_ host: HostReport) async throws(StoreError) -> Bool { try await hostStore.heartbeat(host) }
    public func hosts() async throws(StoreError) -> [HostRecord] { try await hostStore.hosts() }
    public func recoverLostHosts(now: Date) async throws(StoreError) -> [Integration] { try await hostStore.recoverLostHosts(now: now) }
    public func holdLease(_ name: String, holder: String, for duration: Duration) async throws(StoreError) -> Bool {
        try await hostStore.holdLease(name, holder: holder, for: duration)
    }
    public func ping() async throws(StoreError) { try await hostStore.ping() }

    // MARK: LogsAndAssets
    public func logLocation(bot: String, number: Int) -> String? { logStore.logLocation(bot: bot, number: number) }
    public func logSink(for claim: Claim) -> (any LogSink)? { logStore.logSink(for: claim) }
    public func readLog(bot: String, number: Int, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]? {
        try await logStore.readLog(bot: bot, number: number, from: offset, limit: limit)
    }
    public func logSize(bot: String, number: Int) async throws(StoreError) -> Int? { try await logStore.logSize(bot: bot, number: number) }
    public func storeAsset(_ asset: Asset, from path: String, for claim: Claim) async throws(StoreError) {
        try await logStore.storeAsset(asset, from: path, for: claim)
    }
    public func asset(bot: String, number: Int, name: String) async throws(StoreError) -> Asset? {
        try await logStore.asset(bot: bot, number: number, name: name)
    }
    public func readAsset(bot: String, number: Int, name: String, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8] {
        try await logStore.readAsset(bot: bot, number: number, name: name, from: offset, limit: limit)
    }
    public func assetLocation(bot: String, number: Int, name: String) -> String? { logStore.assetLocation(bot: bot, number: number, name: name) }
    public func latestAsset(bot: String, name: String, results: Set<IntegrationResult>) async throws(StoreError) -> Int? {
        try await logStore.latestAsset(bot: bot, name: name, results: results)
    }

    // MARK: WebhookInbox
    public func receiveWebhook(_ delivery: WebhookDelivery, queue requests: [QueueRequest], close closings: [PullRequestClosing], now: Date)
        async throws(StoreError) -> WebhookReceipt
    { try await webhookStore.receiveWebhook(delivery, queue: requests, close: closings, now: now) }
    public func webhookDeliveries(limit: Int) async throws(StoreError) -> [WebhookDelivery] { try await webhookStore.webhookDeliveries(limit: limit) }

    // MARK: Outboxes
    @discardableResult
    public func queueDelivery(_ delivery: NewDelivery, now: Date) async throws(StoreError) -> Bool {
        try await outboxStore.queueDelivery(delivery, now: now)
    }
    public func dueDeliveries(_ kind: OutboxKind, now: Date, limit: Int) async throws(StoreError) -> [StoredDelivery] {
        try await outboxStore.dueDeliveries(kind, now: now, limit: limit)
    }
    public func nextDeliveryAttempt(_ kind: OutboxKind) async throws(StoreError) -> Date? { try await outboxStore.nextDeliveryAttempt(kind) }
    public func deliverySent(_ id: Int64, responseCode: Int?, now: Date) async throws(StoreError) {
        try await outboxStore.deliverySent(id, responseCode: responseCode, now: now)
    }
    public func deliveryFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError) {
        try await outboxStore.deliveryFailed(id, error: error, responseCode: responseCode, retryAt: retryAt, now: now)
    }
    public func recordDeliveryProgress(_ id: Int64, progress: String) async throws(StoreError) {
        try await outboxStore.recordDeliveryProgress(id, progress: progress)
    }
    public func deliveries(_ kind: OutboxKind, undelivered: Bool, limit: Int) async throws(StoreError) -> [StoredDelivery] {
        try await outboxStore.deliveries(kind, undelivered: undelivered, limit: limit)
    }
    public func deliveryCounts(_ kind: OutboxKind) async throws(StoreError) -> [OutboxState: Int] { try await outboxStore.deliveryCounts(kind) }
    public func deliveryProblems(_ kind: OutboxKind) async throws(StoreError) -> [StatusProblem] { try await outboxStore.deliveryProblems(kind) }

    // MARK: MailOutbox
    public func integrationsToNotify(limit: Int) async throws(StoreError) -> [Integration] { try await mailStore.integrationsToNotify(limit: limit) }
    public func markNotified(_ ids: [Int64], now: Date) async throws(StoreError) { try await mailStore.markNotified(ids, now: now) }
    @discardableResult
    public func markAllNotified(now: Date) async throws(StoreError) -> Int { try await mailStore.markAllNotified(now: now) }
    public func digest(bot: String, from: Date, to: Date) async throws(StoreError) -> DigestFigures {
        try await mailStore.digest(bot: bot, from: from, to: to)
    }

    // MARK: StatusOutbox
    public func integrationsAwaitingStatus(bots: [String], since: Date, limit: Int) async throws(StoreError) -> [StatusCandidate] {
        try await statusStore.integrationsAwaitingStatus(bots: bots, since: since, limit: limit)
    }
    @discardableResult
    public func queueStatuses(_ statuses: [CommitStatus], for candidate: StatusCandidate, stage: StatusStage, commit: String, now: Date)
        async throws(StoreError) -> Bool
    { try await statusStore.queueStatuses(statuses, for: candidate, stage: stage, commit: commit, now: now) }

    // MARK: ReviewOutbox
    public func reviewComments(bot: String, pullRequest: Int) async throws(StoreError) -> [ReviewComment] {
        try await reviewStore.reviewComments(bot: bot, pullRequest: pullRequest)
    }
    public func recordReviewComments(_ comments: [ReviewComment], bot: String, pullRequest: Int) async throws(StoreError) {
        try await reviewStore.recordReviewComments(comments, bot: bot, pullRequest: pullRequest)
    }

    // MARK: AccessRecords
    public func botVisibility() async throws(StoreError) -> [String: Bool] { try await accessStore.botVisibility() }
    public func addToken(_ token: AccessToken, hash: String) async throws(StoreError) { try await accessStore.addToken(token, hash: hash) }
    public func tokens() async throws(StoreError) -> [AccessToken] { try await accessStore.tokens() }
    public func tokenHashes() async throws(StoreError) -> [(hash: String, token: AccessToken)] { try await accessStore.tokenHashes() }
    public func token(hash: String) async throws(StoreError) -> (hash: String, token: AccessToken)? { try await accessStore.token(hash: hash) }
    @discardableResult
    public func revokeToken(named name: String) async throws(StoreError) -> Bool { try await accessStore.revokeToken(named: name) }
    public func tokenUsed(named name: String, at now: Date) async throws(StoreError) { try await accessStore.tokenUsed(named: name, at: now) }
    public var accessEpoch: Int? { accessStore.accessEpoch }

    // MARK: WorkspaceCatalog
    public func setWorkspace(_ claim: Claim, origin: WorkspaceOrigin) async throws(StoreError) {
        try await snapshotStore.setWorkspace(claim, origin: origin)
    }
    public func recordSnapshot(_ snapshot: WorkspaceSnapshot) async throws(StoreError) { try await snapshotStore.recordSnapshot(snapshot) }
    public func forgetSnapshots(bot: String, cell: String?, host: String) async throws(StoreError) {
        try await snapshotStore.forgetSnapshots(bot: bot, cell: cell, host: host)
    }
    public func snapshots(bot: String, cell: String, elsewhereThan host: String) async throws(StoreError) -> [(
        snapshot: WorkspaceSnapshot, address: String
    )] { try await snapshotStore.snapshots(bot: bot, cell: cell, elsewhereThan: host) }
    public func clusterSecret() async throws(StoreError) -> String { try await snapshotStore.clusterSecret() }

    // MARK: AuditTrail
    public func recordAudit(_ event: AuditEvent) async throws(StoreError) { try await auditStore.recordAudit(event) }
    public func auditEvents(since: Date?, limit: Int) async throws(StoreError) -> [AuditEvent] {
        try await auditStore.auditEvents(since: since, limit: limit)
    }
    @discardableResult
    public func pruneAudit(before: Date) async throws(StoreError) -> Int { try await auditStore.pruneAudit(before: before) }
}
