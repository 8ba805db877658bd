import GRDB

/// Kiln's SQLite file, `<data>/kiln.sqlite`, in WAL mode with foreign keys on.
///
/// GRDB's `DatabasePool` serialises writes and runs reads concurrently, so the store is a
/// `Sendable` struct rather than an actor.
public struct Store: Sendable {
    let pool: DatabasePool
    public let path: String

    /// Opens (creating if needed) the database at `path`.
    public static func open(path: String) throws(StoreError) -> Store {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            return Store(pool: pool, path: path)
        } catch {
            throw .cannotOpen(path: path, reason: "\(error)")
        }
    }

    /// SQLite's journal mode for this file (`wal`).
    public func journalMode() throws(StoreError) -> String {
        do {
            return try pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") ?? "" }
        } catch {
            throw .query(what: "reading the journal mode", reason: "\(error)")
        }
    }
}

/// Why the store could not do what was asked.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case query(what: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the database \(path): \(reason) (check that its directory exists and is writable)"
        case .query(let what, let reason): "\(what) failed: \(reason)"
        }
    }
}
