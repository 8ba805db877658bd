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
import KilnStore

/// A bot with a `matrix`: its integration checks out, queues one cell per combination of the
/// axes, runs cells itself while any is queued that it can run (so a host of one executor runs
/// them all, one after another), waits for those other executors and hosts took, and then
/// records what they found together: the worst cell's result, each issue once with its cells,
/// every test result with its cell.
extension IntegrationSequencer {
    func runMatrix(
        _ claim: Claim, of bot: Bot, matrix: Matrix, spare: any SpareExecutors, progress: @escaping @Sendable (Progress) -> Void
    ) async -> Integration? {
        let workspace = await workspace(for: claim, of: bot)
        let log = workspace.log
        let steps = IntegrationSteps(context: context, claim: claim, workspace: workspace, cell: nil, warm: nil, spare: spare, progress: progress)
        // The steps run cells through this, never through the sequencer: "run this cell".
        let runCell: @Sendable (Claim) async -> Void = { [self] cell in _ = await run(cell, of: bot, spare: spare, progress: { _ in }) }
        guard var outcome = await ended(claim, with: await steps.runCells(matrix, runCell: runCell), log: log) else { return nil }
        if bisects, bot.bisect.enabled { outcome.bisect = BisectRequest(maxIntegrations: bot.bisect.maxIntegrations) }
        await log.close()
        return await record(claim, outcome: outcome)
    }
}
