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
import KilnPresentation
import Logging

/// `kiln migrate`: copies the embedded store of a data directory (history, logs, outbox, webhook
/// deliveries) into an empty PostgreSQL database, in one transaction, and checks that every table
/// holds as many rows there as here and every log as many bytes.
///
/// Both engines have one schema (`Migrations`): each table is copied column by column under the
/// same names, each value converted to its column's type there, so a column one engine lacks
/// fails the copy by name instead of being lost. Hosts and leases are not copied: they describe
/// running processes, and there are none.
public enum StoreMigration {
    /// The tables copied, parents before children.
    static let tables = [
        "bot", "integration", "step", "issue", "test_case", "integration_commit", "trigger_run", "delivery", "webhook_delivery", "pull_request",
        "review_comment", "bisection", "access_token", "audit_event",
    ]
    /// The tables whose `id` is a serial there.
    static let serialTables = [
        "integration", "issue", "test_case", "trigger_run", "delivery", "webhook_delivery", "bisection", "audit_event",
    ]
    /// How many rows one INSERT carries.
    static let batch = 500
    /// How long the copying transaction may take.
    static let limit = Duration.seconds(3600)

    /// Copies `directory`'s SQLite store into the database of `settings`. The caller holds the
    /// data directory's serve lock, so no server writes meanwhile; `host` is the name its servers
    /// ran under (the config's `host`), to tell a crashed server's integrations from running ones;
    /// `now` is when such an integration is ended.
    public static func copy(
        from directory: DataDirectory, host: String, to settings: DatabaseSettings, now: Date, logger: Logger = Logger(label: "kiln.migrate"),
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(MigrationError) -> MigrationReport {
        guard FileManager.default.fileExists(atPath: directory.database) else { throw .noSource(path: directory.database) }
        do {
            let source = try SQLiteStore.open(dataDirectory: directory.path)
            // A server that crashed left its integrations running: end them as a start would.
            for ended in try await source.recoverAbandoned(isAlive: { ProcessOwner.isAlive($0, onHost: host) }, now: now) {
                progress("\(ended.bot) #\(ended.number) ended as internal-error: \(ended.reason?.sentence ?? "")")
            }
            let target = try await PostgresStore.open(settings, logger: logger)
            defer { target.close() }
            return try await copy(from: source, directory: directory, to: target, progress: progress)
        } catch let error as MigrationError {
            throw error
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .store(.query(what: "copying the embedded store", reason: "\(error)"))
        }
    }

    private static func copy(
        from source: SQLiteStore, directory: DataDirectory, to target: PostgresStore, progress: @escaping @Sendable (String) -> Void
    ) async throws -> MigrationReport {
        let (counts, running, logs) = try await source.read("reading the embedded store") { db in
            let running = try db.rows("SELECT bot, number, owner FROM integration WHERE step NOT IN ('completed', 'pending') ORDER BY id").map {
                "\($0["bot"] as String) #\($0["number"] as Int) (\($0["owner"] as String? ?? "no owner"))"
            }
            return (try rowCounts(db), running, try logFiles(db, directory: directory))
        }
        guard running.isEmpty else { throw MigrationError.running(running) }
        let existing = try await target.read("counting rows") { db in try rowCounts(db, including: ["log_chunk"]).filter { $0.value > 0 } }
        guard existing.isEmpty else { throw MigrationError.notEmpty(url: target.location, counts: existing) }

        let logBytes = logs.reduce(0) { $0 + $1.size }
        let sqlite = source.engine
        // One transaction, verified before it commits: a copy that fails or falls short leaves
        // the database as empty as it was.
        try await target.write("copying the embedded store", limit: limit) { db in
            for table in tables {
                progress("copying \(table) (\(counts[table] ?? 0) rows)")
                try copy(table, from: sqlite, to: db)
            }
            progress("copying \(logs.count) logs (\(logBytes) bytes)")
            for log in logs { try copyLog(log, to: db) }
            // Serial ids continue after the highest copied one.
            for table in serialTables {
                try db.execute("SELECT setval(pg_get_serial_sequence('\(table)', 'id'), COALESCE((SELECT max(id) FROM \(table)), 0) + 1, false)")
            }
            for (table, found) in try rowCounts(db) where found != counts[table] {
                throw MigrationError.mismatch(what: table, expected: counts[table] ?? 0, found: found)
            }
            let bytes: Int = try db.value("SELECT COALESCE(sum(length(data)), 0)::bigint FROM log_chunk") ?? 0
            if bytes != logBytes { throw MigrationError.mismatch(what: "log bytes", expected: logBytes, found: bytes) }
        }
        return MigrationReport(
            tables: tables.map { MigrationReport.Table(name: $0, rows: counts[$0] ?? 0) }, logs: logs.count, logBytes: logBytes,
            database: target.location)
    }

    // MARK: Tables

    static func rowCounts(_ db: any SQLConnection, including more: [String] = []) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in tables + more { counts[table] = try db.value("SELECT count(*) FROM \(table)") ?? 0 }
        return counts
    }

    /// Copies `table` in batches of rows, in rowid order, converting each value to its column's
    /// type there. Runs on the target's transaction thread, reading SQLite as it goes.
    static func copy(_ table: String, from source: SQLiteEngine, to db: any SQLConnection) throws {
        let types = Dictionary(
            uniqueKeysWithValues: try db.rows(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?", table
            ).map { ($0["column_name"] as String, $0["data_type"] as String) })
        var after: Int64 = .min
        while true {
            let start = after
            let page = try source.readNow { sqlite in
                try sqlite.rows("SELECT rowid AS kiln_rowid, * FROM \(table) WHERE rowid > ? ORDER BY rowid LIMIT ?", start, batch)
            }
            guard let last = page.last else { return }
            after = last["kiln_rowid"]
            let columns = Array(last.names.dropFirst())
            for column in columns where types[column] == nil {
                throw MigrationError.schema("\(table).\(column) has no column in PostgreSQL")
            }
            var values: [any SQLBindable] = []
            for row in page {
                for column in columns { values.append(try convert(row.value(column), to: types[column] ?? "", in: "\(table).\(column)")) }
            }
            let tuple = "(" + placeholders(columns.count) + ")"
            try db.execute(
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES \(Array(repeating: tuple, count: page.count).joined(separator: ", "))",
                values)
        }
    }

    /// A value as SQLite holds it, as PostgreSQL's column of `type` takes it.
    static func convert(_ value: SQLValue, to type: String, in column: String) throws -> SQLValue {
        switch (value, type) {
        case (.null, _): return .null
        case (.integer, "bigint"), (.real, "double precision"), (.text, "text"), (.blob, "bytea"): return value
        case (.real(let number), "bigint") where Int64(exactly: number) != nil: return .integer(Int64(number))
        case (.integer(let number), "double precision"): return .real(Double(number))
        case (.integer(let number), "boolean"): return .bool(number != 0)
        case (.blob(let bytes), "text"): return .text(String(decoding: bytes, as: UTF8.self))
        case (.text(let text), "bytea"): return .blob(Array(text.utf8))
        default: throw MigrationError.schema("a value \(value) of \(column) does not fit PostgreSQL's \(type)")
        }
    }

    // MARK: Logs

    struct LogFile: Sendable {
        let integration: Int64
        let path: String
        let size: Int
    }

    /// The log file of every integration that has one.
    static func logFiles(_ db: any SQLConnection, directory: DataDirectory) throws -> [LogFile] {
        try db.rows("SELECT id, bot, number FROM integration ORDER BY id").compactMap { row in
            let path = directory.log(of: row["bot"], number: row["number"])
            guard let size = LogFiles.size(path), size > 0 else { return nil }
            return LogFile(integration: row["id"], path: path, size: size)
        }
    }

    /// A log file as chunks of the live log's size, at their byte offsets.
    static func copyLog(_ log: LogFile, to db: any SQLConnection) throws {
        guard let handle = FileHandle(forReadingAtPath: log.path) else { throw MigrationError.unreadableLog(path: log.path) }
        // closing a file that was only read loses nothing
        defer { try? handle.close() }
        var offset = 0
        while let data = try handle.read(upToCount: LogShipper.chunkLimit), !data.isEmpty {
            try db.execute("INSERT INTO log_chunk (integration_id, start_offset, data) VALUES (?, ?, ?)", log.integration, offset, Array(data))
            offset += data.count
        }
    }
}

/// What `kiln migrate` copied.
public struct MigrationReport: Sendable {
    public struct Table: Sendable {
        public let name: String
        public let rows: Int
    }

    public let tables: [Table]
    public let logs: Int
    public let logBytes: Int
    /// The database, password redacted.
    public let database: String
}

public enum MigrationError: Error, CustomStringConvertible {
    case noSource(path: String)
    case running([String])
    case notEmpty(url: String, counts: [String: Int])
    case mismatch(what: String, expected: Int, found: Int)
    case schema(String)
    case unreadableLog(path: String)
    case store(StoreError)

    public var description: String {
        switch self {
        case .noSource(let path):
            "there is no embedded store at \(path): give the data directory of the installation to move (--data)"
        case .running(let integrations):
            "integrations are running (\(integrations.joined(separator: ", "))): wait until they end (kiln status), then migrate"
        case .notEmpty(let url, let counts):
            "the database \(url) is not empty (\(counts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value) rows" }.joined(separator: ", "))): kiln migrate copies into an empty database only"
        case .mismatch(let what, let expected, let found):
            "the copy fell short: \(what) came to \(found) in PostgreSQL against \(expected) in SQLite, so nothing was committed (did kiln trigger or kiln run write meanwhile? run kiln migrate again)"
        case .schema(let reason): "the schemas differ: \(reason) (this is a bug in kiln; nothing was copied)"
        case .unreadableLog(let path): "cannot read \(path): make it readable, then run kiln migrate again (nothing was copied)"
        case .store(let error): "\(error)"
        }
    }
}
