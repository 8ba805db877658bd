import KilnCore
import Logging

/// Opens the store a server is configured with; the one place that knows which engines exist.
public enum StoreLocation {
    /// The store of `config`: the PostgreSQL database of `database:` when set, with this host's
    /// logs in its data directory; else the embedded SQLite database of the data directory. Either
    /// is migrated before it is returned.
    public static func open(_ config: ServerConfig, logger: Logger = Logger(label: "kiln.store")) async throws(StoreError) -> any Store {
        let layout = config.dataDirectory
        if let database = config.database {
            return try await PostgresStore.open(database, logsDirectory: layout.logs, logger: logger)
        }
        return try SQLiteStore.open(path: layout.database, logsDirectory: layout.logs)
    }
}
