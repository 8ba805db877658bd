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

/// A part of the store that runs on an engine: each role's store (`QueueStore`, `RecordStore`,
/// `HostStore`, …) and `DatabaseStore`, which is all of them. Its extension holds what they
/// share: reads and writes on the engine, and the routines a transaction of several roles runs
/// (queueing an integration, checking a claim, completing one, ending cells, a note in a log).
protocol StoreRole: Sendable {
    associatedtype Engine: StoreEngine
    var engine: Engine { get }
}

extension StoreRole {
    var logsDirectory: String? { engine.logsDirectory }

    /// Where the log of `bot`'s integration `number` is kept as a file; nil where logs are rows.
    func logLocation(bot: String, number: Int) -> String? {
        logsDirectory.map { LogFiles.path(in: $0, bot: bot, number: number) }
    }

    /// Where kept assets are files; nil where they are rows.
    var assetsDirectory: String? {
        engine.logsInDatabase ? nil : logsDirectory.map { ($0 as NSString).deletingLastPathComponent + "/assets" }
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
