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

/// The steps of an integration under way (claimed, not ended) and of one not ended (queued
/// too), as SQL lists. With a bot's name they seek the `integration_active` index (bot, step):
/// `step <> 'completed'` alone seeks only the bot, and SQLite then read the bot's whole history
/// (a claim took 0.5 ms against a bot with 2,600 integrations). `step <> 'completed'` stays
/// beside them, for PostgreSQL to see that the partial index applies.
let runningSteps = stepList(IntegrationStep.allCases.filter { $0 != .awaitingApproval && $0 != .pending && $0 != .completed })
let unfinishedSteps = stepList(IntegrationStep.allCases.filter { $0 != .completed })

private func stepList(_ steps: [IntegrationStep]) -> String {
    "(" + steps.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
}

/// `IntegrationResult` values as an SQL list: `('a', 'b')`.
func sqlList(_ results: some Sequence<IntegrationResult>) -> String {
    "(" + results.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ") + ")"
}
