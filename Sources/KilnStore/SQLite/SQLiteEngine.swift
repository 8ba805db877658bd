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
import GRDB
import KilnCore

/// The embedded store: one SQLite file, `<data>/kiln.sqlite`, in WAL mode with foreign keys on.
public typealias SQLiteStore = DatabaseStore<SQLiteEngine>

/// SQLite through GRDB. A server's `DatabasePool` serialises writes (in IMMEDIATE transactions, so
/// writers in several processes queue on SQLite's lock instead of failing) and runs reads
/// concurrently on its own threads; a command's `DatabaseQueue` is one connection. An inotify
/// watch on the file (`ChangeWatcher`) hears every commit, from any process. Logs are files in
/// the data directory.
public struct SQLiteEngine: StoreEngine {
    let pool: any DatabaseWriter
    public let path: String
    public let logsDirectory: String?
    public let hub: ChangeHub

    public var logsInDatabase: Bool { false }
    public var sharedByHosts: Bool { false }
    /// The inotify watch runs while anyone subscribes to changes (a server's page cache does).
    public var hearsChanges: Bool { hub.isListening }

    public func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(StoreError) -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            pool.asyncRead { database in
                continuation.resume(returning: Result { try body(GRDBConnection(db: try database.get())) })
            }
        }
        return try Self.unwrap(result, what)
    }

    /// A read: each SQLite statement is a transaction of its own either way.
    public func statement<T: Sendable>(_ what: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(StoreError) -> T {
        try await read(what, body)
    }

    /// `lane` and `limit` need nothing here: one host has nobody to heartbeat to, and SQLite's
    /// busy timeout bounds the wait for the write lock. A commit that queues or stops work
    /// (`notify` `.queue`, `.stop`, `.access`) is told in this process as soon as it is made: a
    /// `kiln trigger`'s integration is claimed without waiting for the watcher's thread. The
    /// watcher then hears it as `.data`, and another process's commit as a change of any kind
    /// (`ForeignCommits`).
    public func write<T: Sendable>(
        _ what: String, lane: TransactionLane, notify: ChangeKind?, limit: Duration, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws(StoreError) -> T {
        let hub = hub
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            pool.asyncWriteWithoutTransaction { db in
                let announced = Announcements()
                let result = Result { () throws -> T in
                    var value: T?
                    try db.inTransaction(.immediate) {
                        value = try body(GRDBConnection(db: db, announced: announced))
                        return .commit
                    }
                    guard let value else { throw StoreError.query(what: what, reason: "the transaction returned nothing") }
                    return value
                }
                if case .success = result {
                    if let notify, notify != .data, notify != .log { hub.broadcast(notify) }
                    for kind in announced.kinds { hub.broadcast(kind) }
                }
                continuation.resume(returning: result)
            }
        }
        return try Self.unwrap(result, what)
    }

    /// Nothing runs in the background: the watcher starts with the first subscriber.
    public func run() async {}

    /// Runs `body` in a read transaction on the calling thread, which must not be one of Swift's
    /// cooperative pool (`kiln migrate` reads SQLite from PostgreSQL's transaction thread).
    func readNow<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try pool.read { try body(GRDBConnection(db: $0)) }
    }

    private static func unwrap<T>(_ result: Result<T, any Error>, _ what: String) throws(StoreError) -> T {
        do {
            return try result.get()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .query(what: what, reason: "\(error)")
        }
    }
}

/// The kinds a write transaction announced (`GRDBConnection.announce`), on the writer's thread.
final class Announcements {
    var kinds: [ChangeKind] = []
}

extension DatabaseStore where Engine == SQLiteEngine {
    /// Opens (creating if needed) and migrates the database at `path`. `oneConnection` is for a
    /// command that makes a few queries and exits (`kiln trigger`): it saves the pool's second
    /// connection and its setup, ~2 ms of the command's 20.
    public static func open(path: String, logsDirectory: String? = nil, oneConnection: Bool = false) throws(StoreError) -> SQLiteStore {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "kiln"
        configuration.prepareDatabase { db in
            // In WAL mode, NORMAL keeps every commit safe from a crashed or stopped process and the
            // file consistent through a power cut (which may lose the last moments); FULL would
            // add an fsync to every commit and cap recording at a few hundred integrations a second.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // A pool sets WAL mode itself; a queue must, should it create the file.
            if oneConnection { try db.execute(sql: "PRAGMA journal_mode = WAL") }
        }
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let pool: any DatabaseWriter = try retryingBusyWALSetUp {
                if oneConnection {
                    try DatabaseQueue(path: path, configuration: configuration)
                } else {
                    try DatabasePool(path: path, configuration: configuration)
                }
            }
            try migrate(pool)
            let hub = ChangeHub { onChange, accessMayHaveChanged in
                let commits = ForeignCommits(writer: pool)
                return ChangeWatcher(
                    databasePath: path,
                    onChange: {
                        // A token revoked by `kiln token revoke` fails once this is heard: before
                        // the commit's kind is known, and whoever made it.
                        accessMayHaveChanged()
                        commits.classify(onChange)
                    },
                    // Another process's commit whose last write came before it was visible: heard
                    // as `.stop`, which also tells access.
                    onSettled: { commits.classify(onlyForeign: true, onChange) })
            }
            return SQLiteStore(engine: SQLiteEngine(pool: pool, path: path, logsDirectory: logsDirectory, hub: hub))
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }

    /// How long a statement waits for another connection's lock, in seconds.
    static let busyTimeout: TimeInterval = 30

    /// Runs `open` again while it fails with SQLITE_BUSY, for as long as the busy timeout would
    /// wait. Turning a new file to WAL mode writes its header: SQLite takes a read lock, then asks
    /// to write, and when another process holds the file (it is making the same change, or already
    /// migrating it) refuses at once rather than invoke the busy handler, since waiting while
    /// holding a read lock could deadlock. A server and a `kiln trigger` opening a new data
    /// directory together meet that; the second open finds the file in WAL mode and goes on.
    static func retryingBusyWALSetUp<T>(_ open: () throws -> T) throws -> T {
        let deadline = MonotonicClock.system.now + .seconds(busyTimeout)
        while true {
            do {
                return try open()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && MonotonicClock.system.now < deadline {
                // A few milliseconds, varied so that two processes do not retry in step.
                usleep(UInt32.random(in: 2_000...10_000))
            }
        }
    }

    /// Applies what the file lacks of SQLite's history and the shared migrations, recorded as
    /// GRDB recorded them; a new file gets the schema they leave at once (`History.sqliteSchema`:
    /// ~3 ms, where replaying them took ~100 ms of a new data directory's first command). The
    /// applied ones are read inside the same IMMEDIATE transaction that applies the rest: a server
    /// and a `kiln trigger` opening a new file at once migrate it once (the second waits, then
    /// finds nothing to do) instead of both running the first migrations.
    static func migrate(_ pool: any DatabaseWriter) throws {
        let all = Migrations.applying(History.sqlite)
        // Usually there is nothing to do: a read says so without taking the write lock (asking
        // `sqlite_master` itself: GRDB's `tableExists` would load its whole schema cache first).
        let applied = try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'") == nil
                ? [] : Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        }
        guard all.contains(where: { !applied.contains($0.name) }) else { return }
        try pool.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
                let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
                if applied.isEmpty, Migrations.stoppingBefore == nil, !Migrations.replaying {
                    for statement in History.sqliteSchema { try db.execute(sql: statement) }
                    for migration in all { try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.name]) }
                    return .commit
                }
                for migration in all where !applied.contains(migration.name) {
                    for statement in migration.statements(.sqlite) { try db.execute(sql: statement) }
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [migration.name])
                }
                return .commit
            }
        }
    }

    /// Opens the store of a data directory: `<data>/kiln.sqlite`, logs in `<data>/logs`.
    public static func open(dataDirectory: String) throws(StoreError) -> SQLiteStore {
        let directory = DataDirectory(dataDirectory)
        return try open(path: directory.database, logsDirectory: directory.logs)
    }

    public var path: String { engine.path }

    /// SQLite's journal mode for this file (`wal`).
    public func journalMode() async throws(StoreError) -> String {
        try await read("reading the journal mode") { try $0.value("PRAGMA journal_mode") ?? "" }
    }

    /// The migrations applied, oldest first.
    public func appliedMigrations() async throws(StoreError) -> [String] {
        try await read("reading the migrations") { db in try db.rows("SELECT identifier FROM grdb_migrations ORDER BY rowid").map { $0["identifier"] }
        }
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file.
    public func integrityCheck() async throws(StoreError) -> String {
        try await read("checking integrity") {
            try $0.rows("PRAGMA integrity_check").compactMap { $0.values.first.flatMap(String.init(sqlValue:)) }.joined(separator: "\n")
        }
    }
}

/// A GRDB connection inside one of `SQLiteEngine`'s transactions. Statements are prepared once
/// per connection and kept (GRDB's statement cache).
struct GRDBConnection: SQLConnection {
    let db: Database
    /// What a write transaction announces, told in this process once it commits (another
    /// process's watcher hears the commit as a change of any kind); nil in a read.
    var announced: Announcements?

    func announce(_ kind: ChangeKind) throws {
        announced?.kinds.append(kind)
    }

    var dialect: SQLDialect { .sqlite }

    func rows(_ sql: String, _ arguments: [any SQLBindable]) throws -> [SQLRow] {
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(Self.arguments(arguments))
        let columns = SQLRow.Columns.of(sql) { statement.columnNames }
        var rows: [SQLRow] = []
        let cursor = try Row.fetchCursor(statement)
        while let row = try cursor.next() {
            var values: [SQLValue] = []
            values.reserveCapacity(row.count)
            for index in 0..<row.count { values.append(Self.value(row[index] as DatabaseValue)) }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    func execute(_ sql: String, _ arguments: [any SQLBindable]) throws -> Int {
        try db.cachedStatement(sql: sql).execute(arguments: Self.arguments(arguments))
        return db.changesCount
    }

    private static func arguments(_ values: [any SQLBindable]) -> StatementArguments {
        StatementArguments(
            values.map { value -> DatabaseValue in
                switch value.sqlValue {
                case .null: .null
                case .integer(let value): value.databaseValue
                case .real(let value): value.databaseValue
                case .text(let value): value.databaseValue
                case .blob(let value): Data(value).databaseValue
                case .bool(let value): value.databaseValue
                }
            })
    }

    private static func value(_ value: DatabaseValue) -> SQLValue {
        switch value.storage {
        case .null: .null
        case .int64(let value): .integer(value)
        case .double(let value): .real(value)
        case .string(let value): .text(value)
        case .blob(let data): .blob(Array(data))
        }
    }
}
