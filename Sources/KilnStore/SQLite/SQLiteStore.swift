import Foundation
import GRDB
import KilnCore

/// The embedded store: one SQLite file, `<data>/kiln.sqlite`, in WAL mode with foreign keys on.
///
/// GRDB's `DatabasePool` serialises writes (in IMMEDIATE transactions, so writers in several
/// processes queue on SQLite's lock instead of failing) and runs reads concurrently, so the store is
/// a `Sendable` struct rather than an actor.
public struct SQLiteStore: LogFileStore {
    let pool: DatabasePool
    public let path: String
    /// Where integration logs live (`<logs>/<bot>/<number>.log`), for recovery and retention.
    public let logsDirectory: String?
    let hub: ChangeHub

    /// Opens (creating if needed) and migrates the database at `path`.
    public static func open(path: String, logsDirectory: String? = nil) throws(StoreError) -> SQLiteStore {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(30)
        configuration.label = "kiln"
        configuration.prepareDatabase { db in
            // In WAL mode, NORMAL keeps every commit safe from a crashed or killed process and the
            // file consistent through a power cut (which may lose the last moments); FULL would
            // add an fsync to every commit and cap recording at a few hundred integrations a second.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let pool = try DatabasePool(path: path, configuration: configuration)
            try Schema.migrator.migrate(pool)
            return SQLiteStore(pool: pool, path: path, logsDirectory: logsDirectory, hub: ChangeHub { onChange in ChangeWatcher(databasePath: path, onChange: { onChange(.data) }) })
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }

    /// Opens the store of a data directory: `<data>/kiln.sqlite`, logs in `<data>/logs`.
    public static func open(dataDirectory: String) throws(StoreError) -> SQLiteStore {
        let directory = DataDirectory(dataDirectory)
        return try open(path: directory.database, logsDirectory: directory.logs)
    }

    public func changes() -> AsyncStream<Void> {
        hub.subscribe()
    }

    /// SQLite's journal mode for this file (`wal`).
    public func journalMode() async throws(StoreError) -> String {
        try await read("reading the journal mode") { try String.fetchOne($0, sql: "PRAGMA journal_mode") ?? "" }
    }

    /// The migrations applied, oldest first.
    public func appliedMigrations() async throws(StoreError) -> [String] {
        try await read("reading the migrations") { try Schema.migrator.appliedMigrations($0) }
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file.
    public func integrityCheck() async throws(StoreError) -> String {
        try await read("checking integrity") { try String.fetchAll($0, sql: "PRAGMA integrity_check").joined(separator: "\n") }
    }

    // MARK: Access

    // Reads and writes run on GRDB's own threads and are not canceled with the calling task: a
    // canceled integration must still be recorded as canceled, and a write that was asked for lands.

    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            pool.asyncRead { database in
                continuation.resume(returning: Result { try body(try database.get()) })
            }
        }
        do {
            return try result.get()
        } catch {
            throw .query(what: what, reason: "\(error)")
        }
    }

    func write<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            pool.asyncWriteWithoutTransaction { db in
                continuation.resume(
                    returning: Result {
                        var value: T?
                        try db.inTransaction(.immediate) {
                            value = try body(db)
                            return .commit
                        }
                        guard let value else { throw StoreError.query(what: what, reason: "the transaction returned nothing") }
                        return value
                    })
            }
        }
        do {
            return try result.get()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .query(what: what, reason: "\(error)")
        }
    }
}

// MARK: Row mapping

extension Date {
    /// Seconds since 1970, as the schema stores times.
    var storeValue: Double { timeIntervalSince1970 }

    init(storeValue: Double) {
        self.init(timeIntervalSince1970: storeValue)
    }
}

extension Integration {
    init(row: Row) {
        let result: IntegrationResult? = (row["result"] as String?).flatMap(IntegrationResult.init(rawValue:))
        var summary: Summary?
        if result != nil, let errors = row["errors"] as Int? {
            summary = Summary(
                errors: errors, warnings: row["warnings"] ?? 0, tests: row["tests"] ?? 0, testFailures: row["testFailures"] ?? 0,
                coverage: row["coverage"], errorsChange: row["errorsChange"], warningsChange: row["warningsChange"],
                testsChange: row["testsChange"], testFailuresChange: row["testFailuresChange"], coverageChange: row["coverageChange"])
        }
        self.init(
            id: row["id"], bot: row["bot"], number: row["number"],
            cause: IntegrationCause(rawValue: row["cause"] ?? "") ?? .manual, commit: row["commitSha"], branch: row["branch"],
            step: IntegrationStep(rawValue: row["step"] ?? "") ?? .pending, result: result,
            queuedAt: Date(storeValue: row["queuedAt"]), startedAt: (row["startedAt"] as Double?).map(Date.init(storeValue:)),
            endedAt: (row["endedAt"] as Double?).map(Date.init(storeValue:)), summary: summary, reason: row["reason"],
            expired: row["expired"] ?? false, host: row["host"], owner: row["owner"], pullRequest: Self.pullRequest(row))
    }

    private static func pullRequest(_ row: Row) -> PullRequest? {
        guard let number = row["pullNumber"] as Int? else { return nil }
        return PullRequest(
            number: number, title: row["pullTitle"] ?? "", author: row["pullAuthor"] ?? "", url: row["pullUrl"], head: row["pullHead"] ?? "",
            base: row["pullBase"] ?? "", ref: row["pullRef"] ?? "", fork: row["pullFork"] ?? false)
    }
}

enum JSON {
    static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String?, default value: T) -> T {
        guard let text, let decoded = try? JSONDecoder().decode(type, from: Data(text.utf8)) else { return value }
        return decoded
    }
}
