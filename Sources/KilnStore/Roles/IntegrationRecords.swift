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

/// The read model: what pages, the API, mails and the steps that compare with history read.
/// Nothing here writes.
///
/// Threading and errors as `Store` says.
public protocol IntegrationRecords: Sendable {
    /// The cells of `bot`'s integrations `numbers` (those with a matrix), by integration number,
    /// in each matrix's order.
    func cells(bot: String, of numbers: [Int]) async throws(StoreError) -> [Int: [Integration]]

    /// Every bot with its last completed, running and queued integrations.
    func botOverviews() async throws(StoreError) -> [BotOverview]

    /// A bot's integrations, newest first, numbered below `before` when given.
    func integrations(bot: String, limit: Int, before: Int?) async throws(StoreError) -> [Integration]

    /// A bot's integrations that `filter` lets through, newest first, numbered below `before`
    /// when given.
    func integrations(bot: String, matching filter: HistoryFilter, limit: Int, before: Int?) async throws(StoreError) -> [Integration]

    /// The tests of a bot's history whose suite or name holds `text` (in any case), at most
    /// `limit`, by suite and name.
    func tests(bot: String, containing text: String, limit: Int) async throws(StoreError) -> [TestName]

    /// One integration with its steps, commits, issues and tests.
    func integration(bot: String, number: Int) async throws(StoreError) -> IntegrationDetail?

    /// The tests (at most `limit`) that `bot`'s last completed branch integration ran under
    /// quarantine, each with its last `results` results.
    func quarantinedTests(bot: String, limit: Int, results: Int) async throws(StoreError) -> [TestHistory]

    /// The bisection started by integration `integrationID`, if any.
    func bisection(of integrationID: Int64) async throws(StoreError) -> Bisection?

    /// The bisection numbered `id` (a bisect integration's `bisectionID`) and the number of the
    /// integration it bisects.
    func bisection(id: Int64) async throws(StoreError) -> (bisection: Bisection, bisected: Int)?

    /// One test's results in the last `limit` integrations of `bot`'s branch, newest first.
    func testHistory(bot: String, suite: String, name: String, limit: Int) async throws(StoreError) -> TestHistory

    /// The integration of `bot` numbered below `number` (below none when nil) that `kind` compares with.
    func predecessor(_ kind: Predecessor, bot: String, before number: Int?) async throws(StoreError) -> Integration?

    /// The pull requests of `bot` the forge told of (the open ones only, unless `includeClosed`),
    /// newest first, each with its latest integration.
    func pullRequests(bot: String, includeClosed: Bool) async throws(StoreError) -> [PullRequestOverview]

    /// Totals for `/metrics`.
    func statistics(durationBuckets: [Double]) async throws(StoreError) -> StoreStatistics
}
