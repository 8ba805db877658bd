import Foundation
import GRDB
import KilnCore
import Logging
import PostgresNIO

/// `kiln migrate`: copies the embedded store of a data directory (history, logs, outbox, webhook
/// deliveries) into an empty PostgreSQL database, in one transaction, and checks that every table
/// holds as many rows there as here and every log as many bytes.
///
/// The two schemas are the same model (`Schema`, `PostgresSchema`): each SQLite table has a table
/// of the snake_case name there, and each column a column. The copy is generic over that mapping,
/// so a column added to one schema and not the other fails the copy by name instead of being lost.
/// Hosts and leases are not copied: they describe running processes, and there are none.
public enum StoreMigration {
    /// The tables copied, parents before children.
    static let tables = ["bot", "integration", "step", "issue", "testCase", "integrationCommit", "triggerRun", "outbox", "webhookDelivery", "pullRequest", "forgeStatus"]
    /// The tables whose `id` is a serial there.
    static let serialTables = ["integration", "issue", "testCase", "triggerRun", "outbox", "webhookDelivery", "forgeStatus"]
    /// How many rows one INSERT carries.
    static let batch = 500
    /// How long the copying transaction may take.
    static let limit = Duration.seconds(3600)

    /// Copies `directory`'s SQLite store into the database of `settings`. The caller holds the
    /// data directory's serve lock, so no server writes meanwhile; `host` is the name its servers
    /// ran under (the config's `host`), to tell a crashed server's integrations from running ones.
    public static func copy(
        from directory: DataDirectory, host: String, to settings: DatabaseSettings, logger: Logger = Logger(label: "kiln.migrate"),
        progress: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(MigrationError) -> MigrationReport {
        do {
            return try await performCopy(from: directory, host: host, to: settings, logger: logger, progress: progress)
        } catch let error as MigrationError {
            throw error
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .store(.query(what: "copying the embedded store", reason: "\(error)"))
        }
    }

    private static func performCopy(
        from directory: DataDirectory, host: String, to settings: DatabaseSettings, logger: Logger, progress: @escaping @Sendable (String) -> Void
    ) async throws -> MigrationReport {
        guard FileManager.default.fileExists(atPath: directory.database) else { throw MigrationError.noSource(path: directory.database) }
        let source = try SQLiteStore.open(dataDirectory: directory.path)
        // A server that crashed left its integrations running: end them as a start would.
        for ended in try await source.recoverAbandoned(isAlive: { ProcessOwner.isAlive($0, onHost: host) }, now: Date()) {
            progress("\(ended.bot) #\(ended.number) ended as internal-error: \(ended.reason ?? "")")
        }
        let target = try await PostgresStore.open(settings, logger: logger)
        defer { target.close() }

        let running = try await source.read("reading running integrations") { db in
            try Row.fetchAll(db, sql: "SELECT bot, number, owner FROM integration WHERE step NOT IN ('completed', 'pending') ORDER BY id")
                .map { "\($0["bot"] as String) #\($0["number"] as Int) (\($0["owner"] as String? ?? "no owner"))" }
        }
        guard running.isEmpty else { throw MigrationError.running(running) }

        let counts = try await rowCounts(source)
        let existing = try await target.read("counting rows") { [logger] connection in
            var found: [String: Int] = [:]
            for table in tables + ["log_chunk"] {
                let name = snakeCase(table)
                let count = try await connection.row(PostgresQuery(unsafeSQL: "SELECT count(*) AS n FROM \(name)"), logger: logger)?("n", as: Int.self) ?? 0
                if count > 0 { found[name] = count }
            }
            return found
        }
        guard existing.isEmpty else { throw MigrationError.notEmpty(url: target.location, counts: existing) }

        let logs = try await logFiles(source, directory: directory)
        let logBytes = logs.reduce(0) { $0 + $1.size }
        // One transaction, verified before it commits: a copy that fails or falls short leaves
        // the database as empty as it was.
        try await target.write("copying the embedded store", limit: limit) { [logger] connection in
            for table in tables {
                progress("copying \(table) (\(counts[table] ?? 0) rows)")
                try await copy(table, from: source, to: connection, logger: logger)
            }
            progress("copying \(logs.count) logs (\(logBytes) bytes)")
            for log in logs { try await copyLog(log, to: connection, logger: logger) }
            // Serial ids continue after the highest copied one.
            for table in serialTables {
                let name = snakeCase(table)
                try await connection.execute(
                    PostgresQuery(unsafeSQL: "SELECT setval(pg_get_serial_sequence('\(name)', 'id'), COALESCE((SELECT max(id) FROM \(name)), 0) + 1, false)"),
                    logger: logger)
            }
            for table in tables {
                let found = try await connection.row(PostgresQuery(unsafeSQL: "SELECT count(*) AS n FROM \(snakeCase(table))"), logger: logger)?("n", as: Int.self) ?? 0
                if found != counts[table] { throw MigrationError.mismatch(what: table, expected: counts[table] ?? 0, found: found) }
            }
            let bytes = try await connection.row("SELECT COALESCE(sum(length(data)), 0)::bigint AS n FROM log_chunk", logger: logger)?("n", as: Int.self) ?? 0
            if bytes != logBytes { throw MigrationError.mismatch(what: "log bytes", expected: logBytes, found: bytes) }
        }
        return MigrationReport(
            tables: tables.map { MigrationReport.Table(name: $0, rows: counts[$0] ?? 0) }, logs: logs.count, logBytes: logBytes,
            database: target.location)
    }

    // MARK: Tables

    /// One value as SQLite holds it.
    enum Cell: Sendable {
        case null, integer(Int64), real(Double), text(String), blob([UInt8])

        init(_ value: DatabaseValue) {
            switch value.storage {
            case .null: self = .null
            case .int64(let value): self = .integer(value)
            case .double(let value): self = .real(value)
            case .string(let value): self = .text(value)
            case .blob(let data): self = .blob(Array(data))
            }
        }
    }

    static func rowCounts(_ source: SQLiteStore) async throws -> [String: Int] {
        try await source.read("counting rows") { db in
            var counts: [String: Int] = [:]
            for table in tables { counts[table] = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 }
            return counts
        }
    }

    /// Copies `table` in batches of rows, in rowid order, converting each value to its column's
    /// type there.
    static func copy(_ table: String, from source: SQLiteStore, to connection: PostgresConnection, logger: Logger) async throws {
        let name = snakeCase(table)
        let targetTypes = Dictionary(
            uniqueKeysWithValues: try await connection.rows(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(name)",
                logger: logger
            ).map { (try $0("column_name", as: String.self), try $0("data_type", as: String.self)) })
        let columns = try await source.read("reading the columns of \(table)") { db in try db.columns(in: table).map(\.name) }
        var types: [String] = []
        for column in columns {
            guard let type = targetTypes[snakeCase(column)] else {
                throw MigrationError.schema("\(table).\(column) has no column \(name).\(snakeCase(column)) in PostgreSQL")
            }
            types.append(type)
        }
        let columnList = columns.map { snakeCase($0) }.joined(separator: ", ")
        var after: Int64 = .min
        while true {
            let start = after
            let page = try await source.read("reading \(table)") { db in
                try Row.fetchAll(db, sql: "SELECT rowid AS kiln_rowid, * FROM \(table) WHERE rowid > ? ORDER BY rowid LIMIT ?", arguments: [start, batch])
                    .map { row in (row["kiln_rowid"] as Int64, columns.map { Cell(row[$0] as DatabaseValue) }) }
            }
            guard let last = page.last else { return }
            after = last.0
            var bindings = PostgresBindings(capacity: page.count * columns.count)
            var values: [String] = []
            for (_, cells) in page {
                var placeholders: [String] = []
                for (cell, type) in zip(cells, types) {
                    try bind(cell, as: type, into: &bindings, table: table)
                    placeholders.append("$\(bindings.count)")
                }
                values.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            try await connection.execute(
                PostgresQuery(unsafeSQL: "INSERT INTO \(name) (\(columnList)) VALUES \(values.joined(separator: ", "))", binds: bindings), logger: logger)
        }
    }

    static func bind(_ cell: Cell, as type: String, into bindings: inout PostgresBindings, table: String) throws {
        switch (cell, type) {
        case (.null, _): bindings.appendNull()
        case (.integer(let value), "bigint"): bindings.append(value)
        case (.real(let value), "bigint") where Int64(exactly: value) != nil: bindings.append(Int64(value))
        case (.integer(let value), "double precision"): bindings.append(Double(value))
        case (.real(let value), "double precision"): bindings.append(value)
        case (.integer(let value), "boolean"): bindings.append(value != 0)
        case (.text(let value), "text"): bindings.append(value)
        case (.blob(let value), "text"): bindings.append(String(decoding: value, as: UTF8.self))
        case (.blob(let value), "bytea"): bindings.append(ByteBuffer(bytes: value))
        case (.text(let value), "bytea"): bindings.append(ByteBuffer(string: value))
        default: throw MigrationError.schema("a value \(cell) of \(table) does not fit PostgreSQL's \(type)")
        }
    }

    /// `integrationCommit` → `integration_commit`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    // MARK: Logs

    struct LogFile: Sendable {
        let integration: Int64
        let path: String
        let size: Int
    }

    /// The log file of every integration that has one.
    static func logFiles(_ source: SQLiteStore, directory: DataDirectory) async throws -> [LogFile] {
        let integrations = try await source.read("listing integrations") { db in
            try Row.fetchAll(db, sql: "SELECT id, bot, number FROM integration ORDER BY id").map { ($0["id"] as Int64, $0["bot"] as String, $0["number"] as Int) }
        }
        return integrations.compactMap { id, bot, number in
            let path = directory.log(of: bot, number: number)
            guard let size = LogFiles.size(path), size > 0 else { return nil }
            return LogFile(integration: id, path: path, size: size)
        }
    }

    /// A log file as chunks of the live log's size, at their byte offsets.
    static func copyLog(_ log: LogFile, to connection: PostgresConnection, logger: Logger) async throws {
        guard let handle = FileHandle(forReadingAtPath: log.path) else { throw MigrationError.unreadableLog(path: log.path) }
        defer { try? handle.close() }
        var offset = 0
        while let data = try handle.read(upToCount: PostgresLogSink.chunkLimit), !data.isEmpty {
            try await connection.execute(
                "INSERT INTO log_chunk (integration_id, start_offset, data) VALUES (\(log.integration), \(offset), \(ByteBuffer(bytes: data)))",
                logger: logger)
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
