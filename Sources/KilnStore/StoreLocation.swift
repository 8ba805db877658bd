import KilnCore

/// Opens the store a server is configured with; the one place that knows which engines exist.
public enum StoreLocation {
    /// The store of `directory`: the embedded SQLite database, migrated, with logs beside it.
    public static func open(_ directory: DataDirectory) throws(StoreError) -> any Store {
        try SQLiteStore.open(path: directory.database, logsDirectory: directory.logs)
    }
}
