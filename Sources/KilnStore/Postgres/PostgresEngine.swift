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
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// PostgreSQL through postgres-nio, on a fixed budget of connections (`database.max-connections`):
/// one for heartbeats, leases and `LISTEN kiln` (the control lane), the rest for the store's work,
/// each on a thread of its own (`PostgresLane`). With a budget of one, both share it.
///
/// Every transaction that wrote ends with `NOTIFY kiln`, which the control connection hears, on
/// this host and every other, and turns into changes while the store runs (`run()`); a log's
/// chunks notify only the hosts where someone follows a log (`followLogs`). Claims take rows with
/// `FOR NO KEY UPDATE … SKIP LOCKED` and the bot's row with them, so "one integration per bot at
/// a time" holds across hosts without a coordinator. Logs are kept in the database.
public final class PostgresEngine: StoreEngine {
    /// The URL as messages may show it (password redacted).
    public let location: String
    public let logsDirectory: String?
    public let hub = ChangeHub { _, _ in nil }
    let logger: Logger
    let work: PostgresLane
    let control: PostgresLane

    public var logsInDatabase: Bool { true }
    public var sharedByHosts: Bool { true }

    /// When the connection that listens last proved alive: it connected and listens, a
    /// notification arrived, or a transaction on it ended (`keepHearing` asks every
    /// `Self.hearingInterval`). Nil while it is lost.
    private let heardAt = Mutex<ContinuousClock.Instant?>(nil)
    /// How long a proof of the listening connection holds.
    static let hearingFreshness = Duration.seconds(1)
    static let hearingInterval = Duration.milliseconds(250)

    public var hearsChanges: Bool {
        heardAt.withLock { $0.map { MonotonicClock.system.now - $0 < Self.hearingFreshness } ?? false }
    }

    /// Whether `LISTEN kiln` is in place on the control connection.
    private let listening = Atomic<Bool>(false)

    /// The listening connection answered just now; `proof` only counts while it listens (a
    /// statement on the control lane may have opened a new connection that does not, yet).
    func heard(proof: Bool = false) {
        if proof, !listening.load(ordering: .acquiring) { return }
        heardAt.withLock { $0 = MonotonicClock.system.now }
    }

    /// The connections a `kiln serve` host holds unless `database.max-connections` says fewer.
    public static let defaultConnections = 4
    /// The connections this engine may hold at most (`database.max-connections` for a server).
    let configured: Int
    /// How often a server's engine takes its share of the database again (`ConnectionBudget`).
    static let budgetInterval = Duration.seconds(5)
    /// The share last taken; nil before the first.
    let budget = Mutex<Int?>(nil)

    init(
        configuration: PostgresConnection.Configuration, connections: Int, location: String, logsDirectory: String?, logger: Logger,
        notices: Logger
    ) {
        var configuration = configuration
        configuration.options.connectTimeout = .seconds(5)
        self.location = location
        self.logsDirectory = logsDirectory
        self.logger = logger
        configured = connections
        control = PostgresLane(name: "control", size: 1, configuration: configuration, logger: logger, notices: notices)
        work =
            connections > 1
            ? PostgresLane(name: "work", size: connections - 1, configuration: configuration, logger: logger, notices: notices) : control
        // A server holds two until it has read its share (`takeBudget`): thirty hosts started
        // at once would otherwise fill the database before any had counted the others.
        if connections > ConnectionBudget.beforeShare { work.setAllowed(ConnectionBudget.beforeShare - 1) }
    }

    /// Closes the engine's connections; the store cannot be used afterwards.
    public func close() {
        work.close()
        control.close()
    }

    /// Hears the changes of every host until canceled, and while someone on this host follows a
    /// running log, the chunks every host writes (`followLogs`).
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.listen() }
            group.addTask { await self.followLogs() }
            group.addTask { await self.keepHearing() }
            // A command's one or two connections are below any share.
            if configured > 2 { group.addTask { await self.keepBudget() } }
        }
    }

    /// Hears the changes of every host (`LISTEN kiln` on the control connection) until canceled,
    /// listening again after a lost connection. A (re)connection is news: changes may have been
    /// missed meanwhile (`hearLogs` says the same of log chunks).
    private func listen() async {
        await reconnecting("listening for database changes") { connected in
            let connection = try await control.sharedConnection()
            try await withTaskCancellationHandler {
                try await connection.listen(on: "kiln") { notifications in
                    connected()
                    listening.store(true, ordering: .releasing)
                    heard()
                    hub.broadcast(.stop)
                    for try await notification in notifications {
                        heard()
                        if notification.payload == Self.following {
                            logsFollowedUntil.withLock { $0 = MonotonicClock.system.now + Self.followingLapse }
                        } else {
                            hub.broadcast(ChangeKind(rawValue: notification.payload) ?? .data)
                        }
                    }
                }
            } onCancel: {
                connection.closeQuietly()
            }
        } lost: {
            // Whatever was heard may be stale from now on, until the connection is back.
            listening.store(false, ordering: .releasing)
            heardAt.withLock { $0 = nil }
            hub.accessMayHaveChanged()
        }
    }

    /// Runs `session` until canceled, again after each end or failure: after a pause that
    /// doubles from 100 ms to 5 s while it fails, and starts over once it calls `connected`.
    private func reconnecting(
        _ what: String, _ session: (_ connected: () -> Void) async throws -> Void, lost: () -> Void = {}
    ) async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                try await session { delay = .milliseconds(100) }
                lost()
            } catch {
                lost()
                if Task.isCancelled { break }
                logger.warning("\(what): \(error.reason); trying again in \(delay)")
            }
            await MonotonicClock.system.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
        }
    }

    /// The payload on `kiln` of a host that follows a log, sent every `followingInterval` while it does.
    static let following = "following"
    static let followingInterval = Duration.seconds(5)
    /// How long a host sends its log chunks' notifications after it last heard `following`.
    static let followingLapse = Duration.seconds(15)

    /// Until when this host tells of its log chunks: someone somewhere follows a log.
    private let logsFollowedUntil = Mutex<ContinuousClock.Instant?>(nil)

    /// Whether a host was heard following a log within `followingLapse`.
    var logsFollowed: Bool {
        logsFollowedUntil.withLock { until in until.map { $0 > MonotonicClock.system.now } ?? false }
    }

    /// A log chunk is news only where someone follows a running log (a page streaming it), so
    /// logs do not wake every host 50 times a second each: only a host with a follower listens on
    /// `kiln_log`, and says so on `kiln` every `followingInterval`; the others notify `kiln_log`
    /// of their chunks only while they have heard that within `followingLapse`. A follower that
    /// starts before the writers have heard of it misses nothing: it also looks for more every
    /// 200 ms (`LogController`), as it does for SQLite's log files.
    private func followLogs() async {
        var changes = hub.subscriptionChanges().makeAsyncIterator()
        while await changes.next() != nil {
            guard hub.isHeard(.log) else { continue }
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.hearLogs() }
                while await changes.next() != nil, hub.isHeard(.log) {}
                group.cancelAll()
            }
        }
    }

    /// Listens on `kiln_log` and says so, until canceled (when the last follower leaves), listening
    /// again after a lost connection. The control connection is the listener's too: it is not
    /// closed here.
    private func hearLogs() async {
        await reconnecting("listening for log chunks") { connected in
            let connection = try await control.sharedConnection()
            try await connection.listen(on: "kiln_log") { notifications in
                connected()
                hub.broadcast(.log)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await _ in notifications { self.hub.broadcast(.log) }
                    }
                    group.addTask {
                        while !Task.isCancelled {
                            let what = "saying this host follows a log"
                            _ = try await self.transaction(what, on: self.control, begin: nil, notify: nil, limit: operationLimit) { db in
                                try db.execute("SELECT pg_notify('kiln', ?)", Self.following)
                            }
                            try await Task.sleep(for: Self.followingInterval)
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    public func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(StoreError) -> T {
        // One snapshot for all the statements of a read, as SQLite's reads have.
        try await transaction(
            what, on: work, begin: "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", notify: nil, limit: operationLimit, body)
    }

    public func write<T: Sendable>(
        _ what: String, lane: TransactionLane, notify: ChangeKind?, limit: Duration, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws(StoreError) -> T {
        try await transaction(what, on: lane == .control ? control : work, begin: "BEGIN", notify: notify, limit: limit, body)
    }

    public func statement<T: Sendable>(_ what: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(StoreError) -> T {
        try await transaction(what, on: work, begin: nil, notify: nil, limit: operationLimit, body)
    }

    /// Runs `body` between `begin` and `COMMIT` on a thread and connection of `lane` (without
    /// `begin`, in autocommit: `body` makes one statement). A transaction that changed something
    /// ends with `NOTIFY kiln` carrying `notify`, so that only news wakes the other hosts: an
    /// idle claim that found nothing must not wake every scheduler, its own included, to claim
    /// again, and it spares the round trip.
    ///
    /// It is not canceled with the caller, only by `limit` (`TransactionOutcome`): then the
    /// caller hears the database is unreachable. The limit runs from when a thread of the lane
    /// takes the transaction: waiting behind this host's own work says nothing of the database.
    func transaction<T: Sendable>(
        _ what: String, on lane: PostgresLane, begin: String?, notify: ChangeKind?, limit: Duration,
        _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws(StoreError) -> T {
        let logger = logger
        let outcome = TransactionOutcome<T>(on: lane.eventLoop)
        lane.submit {
            let timer = lane.eventLoop.scheduleTask(in: .nanoseconds(Int64(limit.seconds * 1e9))) { outcome.expire() }
            defer { timer.cancel() }
            outcome.finish(
                Result {
                    try lane.withConnection { connection in
                        guard outcome.start(on: connection) else { throw LaneError.expired }
                        let db = PostgresSQLConnection(connection: connection, logger: logger)
                        guard let begin else { return try body(db) }
                        try db.execute(begin)
                        do {
                            let value = try body(db)
                            if let notify, db.changed {
                                if notify != .log {
                                    try db.execute("SELECT pg_notify('kiln', ?)", notify.rawValue)
                                } else if self.logsFollowed {
                                    try db.execute("SELECT pg_notify('kiln_log', '')")
                                }
                            }
                            try db.execute("COMMIT")
                            return value
                        } catch {
                            _ = try? db.execute("ROLLBACK")
                            throw error
                        }
                    }
                })
        }
        let result = await outcome.result
        switch result {
        case .success(let value): return value
        case .failure(LaneError.expired): throw .unreachable(url: location, reason: "\(what) did not end within \(limit)")
        case .failure(LaneError.connecting(let reason)): throw .unreachable(url: location, reason: reason)
        case .failure(let error as StoreError): throw error
        case .failure(let error): throw .query(what: what, reason: error.reason)
        }
    }
}
