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

/// What differs between the databases the store runs on: how a transaction is run, how other
/// processes' changes are heard of, and where logs live. Everything the store does is written once
/// (`DatabaseStore`) as synchronous transactions against `SQLConnection`; an engine runs each one.
///
/// Reads and writes are not canceled with the calling task: a canceled integration must still be
/// recorded as canceled, and a write that was asked for lands.
public protocol StoreEngine: Sendable {
    /// Runs `body` in one read-only transaction that sees one snapshot.
    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(StoreError) -> T

    /// Runs `body` in one write transaction on `lane`. `notify` says what the other processes and
    /// hosts hear of it when it changed anything (nil: nothing they need to hear of, such as a
    /// heartbeat); `limit` how long it may take, waiting for the database included.
    func write<T: Sendable>(
        _ what: String, lane: TransactionLane, notify: ChangeKind?, limit: Duration, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws(StoreError) -> T

    /// Runs `body`, which makes one statement, on its own: outside any transaction where the
    /// database has them per statement (PostgreSQL's autocommit), one round trip where a
    /// transaction takes three. For a look that may spare a transaction.
    func statement<T: Sendable>(_ what: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(StoreError) -> T

    /// Does the engine's background work until the task is canceled: hearing other hosts' changes
    /// where it is not done on demand.
    func run() async

    /// Where changes from this process and every other are heard.
    var hub: ChangeHub { get }

    /// Whether this process hears every change of the database now: SQLite's watch on its file
    /// runs; PostgreSQL's `LISTEN` connection answered within the last second. When false, what
    /// was read earlier may be stale without anyone having said so.
    var hearsChanges: Bool { get }

    /// Where this host keeps integration logs as files: the logs themselves, or local copies of
    /// logs kept in the database (what scripts read as `KILN_LOG`); nil for none.
    var logsDirectory: String? { get }

    /// Whether logs are kept in the database (`log_chunk`), so that every host serves every log,
    /// rather than in files.
    var logsInDatabase: Bool { get }

    /// Whether several hosts share the database. One SQLite file serves one host (`ServeLock`):
    /// there, integrations are judged by their process, never by a host's lease.
    var sharedByHosts: Bool { get }
}

extension StoreEngine {
    func write<T: Sendable>(
        _ what: String, notify: ChangeKind? = .data, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws(StoreError) -> T {
        try await write(what, lane: .work, notify: notify, limit: operationLimit, body)
    }
}

/// Which of an engine's connections a write runs on.
public enum TransactionLane: Sendable {
    /// The store's work: claims, steps, completions, logs, pages.
    case work
    /// What keeps a host known to the others (heartbeats and leases): a connection of its own
    /// that no amount of work can hold up.
    case control
}

/// How long one read or write may take, waiting for a connection included: a database server that
/// refuses connections would make a page wait for ever, and it must rather answer 503.
let operationLimit = Duration.seconds(15)

/// What changed, the payload of PostgreSQL's notifications: the store's data (`Store.changes()`);
/// the queue (`Store.queueChanges()`: work to claim, or work ended); a request that running work
/// stop (`Store.stopChanges()`: a cancel, a superseding commit, a closed pull request, a lost
/// claim); or an integration's log (`Store.logChanges()`; on PostgreSQL heard only where someone
/// follows a log, `PostgresEngine.followLogs`). A stop is a change of the queue, and both are
/// changes of the data. A token made or revoked is a change of the data, and of access (what
/// `AccessRecords.accessEpoch` counts).
public enum ChangeKind: String, Sendable {
    case data = ""
    case queue
    case stop
    case log
    case access

    /// Whether a subscriber to `self` hears of a change of `kind`.
    func hears(_ kind: ChangeKind) -> Bool {
        switch self {
        case .data: kind != .log
        case .queue: kind == .queue || kind == .stop
        case .stop, .log, .access: kind == self
        }
    }
}
