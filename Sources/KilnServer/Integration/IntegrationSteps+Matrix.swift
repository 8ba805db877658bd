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
import KilnBuild
import KilnCore
import KilnPresentation
import KilnStore

extension IntegrationSteps {
    /// The matrix integration's steps: checkout, its cells (the `testing` step), what they found
    /// together (`processing`), the after triggers in its own workspace. Ending early ends its
    /// cells: the queued ones at once, the running ones asked to stop.
    func runCells(_ matrix: Matrix, runCell: @escaping @Sendable (Claim) async -> Void) async -> IntegrationOutcome? {
        var course = start()
        do throws(Stop) {
            try await checkout(&course)
            try await enter(.testing, &course)
            let cells = try await cellsToRun(of: matrix)
            await log.header("cells: \(cells.map(\.name).joined(separator: ", ")), at once on idle executors")
            try await storing { [store, claim, context] () async throws(StoreError) in
                try await store.addCells(cells, to: claim, now: context.clock.now)
            }
            try await superviseCells(runCell: runCell)
            try await enter(.processing, &course)
            let found = try await storing { [store, claim] () async throws(StoreError) in try await store.cellOutcomes(of: claim) }
            for outcome in found { await log.note(CellText.line(outcome.cell)) }
            var outcome = IntegrationOutcome.merging(found, commits: course.commits)
            notReproduced(&outcome)
            // after triggers report to the log and their trigger runs; a store error there ends nothing already recorded
            if integration.bisectionID == nil { try? await runTriggers(.after, result: outcome.result, &course) }
            outcome.triggers = course.triggers
            outcome.review = await reviewRequest(course)
            outcome.review?.patch = outcome.patchCoverage
            outcome.review?.commentsUncovered = bot.coverage.comments
            ended(course)
            return outcome
        } catch {
            if case .ended(let result, let reason) = error {
                let (store, claim, now, reason) = (store, claim, context.clock.now, reason ?? .matrixEnded(result: result))
                await context.logger.bestEffort(
                    "ending the cells of \(claim.bot) #\(claim.number)", loses: "they end when the integration is recorded, which is retried",
                    { () async throws(StoreError) in try await store.endCells(of: claim, reason: reason, now: now) })
            }
            return await outcome(of: error, course)
        }
    }

    /// The matrix's cells; for a bisect integration, only those where the failures it looks for
    /// were found (a failure only in release is bisected in release alone); for a failed-only
    /// re-run, only those that failed in the integration it runs again.
    func cellsToRun(of matrix: Matrix) async throws(Stop) -> [Cell] {
        if let rerun = integration.rerunOf, rerun.only == .failed {
            let failed = Set(Rerun.failedCells(of: try await original(rerun)))
            let cells = matrix.cells.filter { failed.contains($0.name) }
            return cells.isEmpty ? matrix.cells : cells
        }
        guard let id = integration.bisectionID else { return matrix.cells }
        let (store, bot) = (store, bot.name)
        let found = try await storing { () async throws(StoreError) -> Set<String> in
            guard let (bisection, bisected) = try await store.bisection(id: id),
                let detail = try await store.integration(bot: bot, number: bisected)
            else { return [] }
            let sought = Set(bisection.fingerprints)
            return Set(detail.issues.filter { sought.contains($0.fingerprint) }.flatMap(\.cells))
        }
        let failing = matrix.cells.filter { found.contains($0.name) }
        return failing.isEmpty ? matrix.cells : failing
    }

    /// Runs the cells through a `CellSupervisor` until every one has ended (see there).
    func superviseCells(runCell: @escaping @Sendable (Claim) async -> Void) async throws(Stop) {
        let supervisor = CellSupervisor(
            context: context, claim: claim, owner: integration.owner ?? ProcessOwner.current(host: integration.host ?? ""),
            deadline: workspace.deadline, runCell: runCell)
        switch try await storing({ () async throws(StoreError) in try await supervisor.run() }) {
        case .completed: return
        case .canceled: throw stop(.canceled, .canceled)
        case .timedOut: throw timedOut()
        }
    }

    /// A store operation of this integration's: a lost claim stops it without a result, any
    /// other failure ends it as an internal error.
    func storing<T: Sendable>(_ body: @Sendable () async throws(StoreError) -> T) async throws(Stop) -> T {
        do {
            return try await body()
        } catch .claimLost(_, let reason) {
            throw .lost("this host no longer holds the integration (\(reason))")
        } catch {
            throw stop(.internalError, .fault(stage: .other, message: "\(error)"))
        }
    }
}
