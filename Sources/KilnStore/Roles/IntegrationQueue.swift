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

/// The queue and the life of an integration: bots as loaded, queueing, claims, steps,
/// completion, requests to stop, recovery of this host's abandoned integrations, retention.
/// Every write about a claimed integration is refused (`StoreError.claimLost`) once the claim
/// no longer holds.
///
/// Threading and errors as `Store` says.
public protocol IntegrationQueue: Sendable {
    /// Records the bots as just loaded; bots whose files are gone are kept, marked not loaded.
    func syncBots(_ bots: [BotState], now: Date) async throws(StoreError)

    /// Queues an integration, or coalesces into the bot's queued one (moving it to `commit`).
    /// With `cancelSuperseded`, an integration running for another commit is asked to stop.
    func enqueue(_ request: QueueRequest, now: Date) async throws(StoreError) -> QueueOutcome

    /// Moves the oldest queued integration whose bot has none running to `checkout`, owned by
    /// `owner` (`ProcessOwner`, whose first word is the host); nil when there is nothing to run.
    /// Safe for several executors, processes and hosts. A matrix's queued cells come first,
    /// those whose toolchain is among `toolchains` (what this host offers).
    func claimNext(owner: String, toolchains: [String], now: Date) async throws(StoreError) -> Claim?

    /// Queues as `enqueue` does and, in the same transaction, claims as `claimNext` does: for a
    /// host with a free executor, whose next claim would otherwise take a transaction of its own
    /// after hearing of this one through the change feed. The claim is usually the integration
    /// just queued; it is whatever `claimNext` would have taken.
    func enqueue(
        _ request: QueueRequest, claimingFor owner: String, toolchains: [String], now: Date
    ) async throws(StoreError) -> (outcome: QueueOutcome, claim: Claim?)

    /// Claims one particular queued integration (for `kiln run`), if its bot has none running;
    /// nil when it is not queued any more or must wait.
    func claim(_ id: Int64, owner: String, now: Date) async throws(StoreError) -> Claim?

    /// Records that the integration entered `step` (ending the previous step's timing).
    /// Throws `claimLost` when the claim no longer holds, as every write about a claimed integration does.
    func advance(_ claim: Claim, to step: IntegrationStep, now: Date) async throws(StoreError)

    /// Records the commit a running integration is checking out.
    /// Records what `claim`'s tests have shown so far (`TestProgress`).
    func recordProgress(_ claim: Claim, _ progress: TestProgress) async throws(StoreError)

    func setCommit(_ claim: Claim, commit: String) async throws(StoreError)

    /// Ends an integration with its outcome: marks issues new, unresolved or resolved against the
    /// previous one, computes the summary's changes, and stores issues, tests and commits.
    @discardableResult
    func complete(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration

    /// Queues the cells of the matrix integration `claim` holds, each an integration row of its
    /// own (numbered below zero) with that one's commit and cause.
    func addCells(_ cells: [Cell], to claim: Claim, now: Date) async throws(StoreError)

    /// Claims a queued cell of the integration `claim` holds whose toolchain is among
    /// `toolchains`, to run in that integration's own workspace; nil when none is queued.
    func claimCell(of claim: Claim, owner: String, toolchains: [String], now: Date) async throws(StoreError) -> Claim?

    /// The cells of the integration `claim` holds, as they stand, in the matrix's order.
    func cells(of claim: Claim) async throws(StoreError) -> [Integration]

    /// What each cell of the integration `claim` holds found, in the matrix's order.
    func cellOutcomes(of claim: Claim) async throws(StoreError) -> [CellOutcome]

    /// Ends a cell with its outcome as it is: no comparison with earlier integrations (its
    /// integration compares what all its cells found), nothing mailed.
    @discardableResult
    func completeCell(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration

    /// Ends the cells of the integration `claim` holds, which ended early: the queued ones as
    /// canceled with `reason`, the running ones asked to stop.
    func endCells(of claim: Claim, reason: IntegrationReason, now: Date) async throws(StoreError)

    /// Ends the queued cells of the integration `claim` holds whose toolchain is not among
    /// `offered`, as canceled with a reason that says so; returns how many.
    @discardableResult
    func endCellsWithoutHost(of claim: Claim, offered: Set<String>, now: Date) async throws(StoreError) -> Int

    /// The toolchains the live hosts with executors offer, together.
    func offeredToolchains() async throws(StoreError) -> Set<String>

    /// Asks a running integration to stop; its owner hears of it through `changes()` and
    /// `stopRequests(for:)`.
    func requestCancel(_ id: Int64, reason: IntegrationReason) async throws(StoreError)

    /// Cancels integration `number` of `bot`: a queued one ends `canceled` at once, a running one
    /// is asked to stop. Nil when there is no such integration or it has ended.
    func cancel(bot: String, number: Int, reason: IntegrationReason, now: Date) async throws(StoreError) -> Integration?

    /// Lets integration `number` of `bot`, a fork's pull request waiting for a member's approval,
    /// start, saying who approved it. Nil when it waits for no approval (not queued, or approved).
    func approve(bot: String, number: Int, by approver: String, now: Date) async throws(StoreError) -> Integration?

    /// The integrations of `bots` waiting for a member's approval, oldest first.
    func awaitingApproval(bots: [String]) async throws(StoreError) -> [Integration]

    /// Which of `claims` must stop: those someone asked to stop, and those whose claim was lost
    /// (another host ended them, taking this one as gone).
    func stopRequests(for claims: [Claim]) async throws(StoreError) -> [CancelRequest]

    /// Ends integrations left running by processes of this host that are gone as `internal-error`,
    /// with the reason appended to their logs; returns them.
    func recoverAbandoned(isAlive: @Sendable (String) -> Bool, now: Date) async throws(StoreError) -> [Integration]

    /// Keeps the logs, issues and tests of the last `keep` integrations of `bot` (of every bot
    /// when nil); older ones keep their summary and are marked expired. Returns how many expired.
    func applyRetention(keep: Int, bot: String?) async throws(StoreError) -> Int
}

extension IntegrationQueue {
    /// `claimNext` on a host that offers only its own `swift`.
    public func claimNext(owner: String, now: Date) async throws(StoreError) -> Claim? {
        try await claimNext(owner: owner, toolchains: [Matrix.defaultToolchain], now: now)
    }
}
