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

import KilnCore
import KilnStore

/// A matrix integration's cells while they run: it runs the queued cells this host can run, one
/// after another, until none is queued (so a host of one executor runs them all), then waits for
/// those other executors and hosts took. A cell whose toolchain no live host offers ends with a
/// reason that says so, instead of being waited for for ever.
struct CellSupervisor: Sendable {
    let context: IntegrationContext
    /// The matrix's integration.
    let claim: Claim
    /// Who claims the cells this host runs: the integration's own process.
    let owner: String
    let deadline: ContinuousClock.Instant
    /// Runs one claimed cell to its end, recording it.
    let runCell: @Sendable (Claim) async -> Void

    /// How the cells' supervision ended, short of a store failure.
    enum Ending: Sendable, Equatable {
        /// Every cell completed.
        case completed
        case canceled
        case timedOut
    }

    /// How often the integration looks at its cells while others run them.
    static let look = Duration.milliseconds(100)

    func run() async throws(StoreError) -> Ending {
        let (store, clock, offered) = (context.store, context.clock, context.offeredToolchains)
        while true {
            if Task.isCancelled { return .canceled }
            if clock.monotonic.now >= deadline { return .timedOut }
            if let mine = try await store.claimCell(of: claim, owner: owner, toolchains: offered, now: clock.now) {
                await runCell(mine)
                continue
            }
            let cells = try await store.cells(of: claim)
            if cells.allSatisfy({ $0.step == .completed }) { return .completed }
            let queued = Set(cells.filter { $0.step == .pending }.map { $0.toolchain ?? Matrix.defaultToolchain })
            if !queued.isSubset(of: offered) {
                let live = try await store.offeredToolchains().union(offered)
                if !queued.isSubset(of: live) {
                    _ = try await store.endCellsWithoutHost(of: claim, offered: live, now: clock.now)
                    continue
                }
            }
            // A sleep cut short by a cancel is seen at the top of the loop.
            await clock.monotonic.sleep(for: Self.look)
        }
    }
}
