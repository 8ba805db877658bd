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

/// The store, written once: every operation of `Store` as SQL both engines understand and the
/// read → decide → write logic around it, run by `Engine` in its own kind of transaction.
/// `SQLiteStore` (the embedded default) and `PostgresStore` (several hosts) are this class on
/// their engine; `StoreLocation.open` picks one, and no caller sees which it got.
///
/// Tables and columns have the same names on both engines (`Migrations`). Each operation is one
/// transaction: it sees and leaves the store consistent, with no state kept in memory between calls.
public final class DatabaseStore<Engine: StoreEngine>: Store {
    public let engine: Engine
    /// Sends this host's integration logs, where they are kept in the database.
    let logShipper: LogShipper?

    init(engine: Engine) {
        self.engine = engine
        var shipper: LogShipper?
        if engine.logsInDatabase { shipper = LogShipper { chunks throws(StoreError) in try await Self.appendChunks(engine, chunks) } }
        logShipper = shipper
    }

    /// The engine's background work and the log shipper, until the task is canceled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.engine.run() }
            if let logShipper { group.addTask { await logShipper.run() } }
            while !Task.isCancelled { await MonotonicClock.system.sleep(for: .seconds(3600)) }
        }
    }

    var logsDirectory: String? { engine.logsDirectory }

    public func changes() -> AsyncStream<Void> {
        engine.hub.subscribe(to: .data)
    }

    public func queueChanges() -> AsyncStream<Void> {
        engine.hub.subscribe(to: .queue)
    }

    public func stopChanges() -> AsyncStream<Void> {
        engine.hub.subscribe(to: .stop)
    }

    public func logChanges() -> AsyncStream<Void> {
        engine.hub.subscribe(to: .log)
    }

    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(StoreError) -> T {
        try await engine.read(what, body)
    }

    /// A read of one statement, run on its own: a statement sees one snapshot by itself, and
    /// PostgreSQL answers it in one round trip where a read transaction takes three. For the
    /// reads every integration or every host's tick makes.
    func readStatement<T: Sendable>(_ what: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(StoreError) -> T {
        try await engine.statement(what, body)
    }

    @discardableResult
    func write<T: Sendable>(
        _ what: String, lane: TransactionLane = .work, notify: ChangeKind? = .data, limit: Duration = operationLimit,
        _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws(StoreError) -> T {
        try await engine.write(what, lane: lane, notify: notify, limit: limit, body)
    }
}

/// The steps of an integration under way (claimed, not ended) and of one not ended (queued
/// too), as SQL lists. With a bot's name they seek the `integration_active` index (bot, step):
/// `step <> 'completed'` alone seeks only the bot, and SQLite then read the bot's whole history
/// (a claim took 0.5 ms against a bot with 2,600 integrations). `step <> 'completed'` stays
/// beside them, for PostgreSQL to see that the partial index applies.
let runningSteps = stepList(IntegrationStep.allCases.filter { $0 != .pending && $0 != .completed })
let unfinishedSteps = stepList(IntegrationStep.allCases.filter { $0 != .completed })

private func stepList(_ steps: [IntegrationStep]) -> String {
    "(" + steps.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
}

/// `IntegrationResult` values as an SQL list: `('a', 'b')`.
func sqlList(_ results: some Sequence<IntegrationResult>) -> String {
    "(" + results.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ") + ")"
}
