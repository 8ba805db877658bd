import Foundation
import KilnCore
import Logging
import PostgresNIO

/// The shared store: one PostgreSQL database that several `kiln serve` hosts use at once.
///
/// `PostgresClient` is the connection pool; the store runs it for its whole life. Every method is
/// one transaction, and every transaction that wrote ends with `NOTIFY kiln`, which a connection of
/// the store's own (`PostgresListener`) hears, on this host and every other, and turns into
/// `changes()`. Claims take rows with `FOR UPDATE … SKIP LOCKED` and the bot's row with them, so
/// "one integration per bot at a time" holds across hosts without a coordinator.
public final class PostgresStore: RecoveringStore {
    let client: PostgresClient
    /// The URL as messages may show it (password redacted).
    public let location: String
    /// Where this host keeps local copies of the logs it writes (`KILN_LOG`); nil for none.
    public let logsDirectory: String?
    let logger: Logger
    let hub: ChangeHub
    private let running: Task<Void, Never>

    /// Connects to the database of `settings`, migrates it, and starts listening for changes.
    public static func open(_ settings: DatabaseSettings, logsDirectory: String? = nil, logger: Logger = Logger(label: "kiln.postgres"))
        async throws(StoreError) -> PostgresStore
    {
        let location = settings.redactedURL
        let target = try PostgresURL.target(settings)
        try await check(target, location: location)
        // The pool logs each failed connection; the store says what matters itself.
        var background = logger
        background.logLevel = .error
        let store = PostgresStore(configuration: target.client, location: location, logsDirectory: logsDirectory, logger: background)
        do {
            try await PostgresSchema.migrate(store)
        } catch {
            store.close()
            throw error
        }
        return store
    }

    /// One connection and `SELECT 1`, failing within seconds: the pool would wait for ever.
    private static func check(_ target: PostgresURL.Target, location: String) async throws(StoreError) {
        let result = await Task { () -> (any Error)? in
            do {
                var configuration = try target.connection()
                configuration.options.connectTimeout = .seconds(5)
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: Logger(label: "kiln.postgres"))
                defer { Task { try? await connection.close() } }
                try await connection.query("SELECT 1", logger: Logger(label: "kiln.postgres"))
                return nil
            } catch {
                return error
            }
        }.value
        if let result { throw .unreachable(url: location, reason: result.reason) }
    }

    private init(configuration: PostgresClient.Configuration, location: String, logsDirectory: String?, logger: Logger) {
        var configuration = configuration
        configuration.options.connectTimeout = .seconds(5)
        self.location = location
        self.logsDirectory = logsDirectory
        self.logger = logger
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        running = Task { await client.run() }
        hub = ChangeHub { onChange in PostgresListener(client: client, logger: logger, onChange: onChange) }
    }

    /// Closes the pool's connections; the store cannot be used afterwards.
    public func close() {
        running.cancel()
    }

    deinit {
        running.cancel()
    }

    public func changes() -> AsyncStream<Void> {
        hub.subscribe(to: .data)
    }

    public func logChanges() -> AsyncStream<Void> {
        hub.subscribe(to: .log)
    }

    // MARK: Access

    // Reads and writes run in tasks of their own, not canceled with the caller: a canceled
    // integration must still be recorded as canceled, and a write that was asked for lands.

    func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(StoreError) -> T {
        let (client, logger) = (client, logger)
        return try await detached(what) {
            try await client.withConnection { connection in
                // One snapshot for all the statements of a read, as SQLite's reads have.
                try await connection.query("START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                do {
                    let value = try await body(connection)
                    try await connection.query("COMMIT", logger: logger)
                    return value
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw error
                }
            }
        }
    }

    /// A transaction that ends, when it wrote, with `NOTIFY kiln` carrying `notify`: `log` for a
    /// log's new chunk (live logs follow those), empty for anything else, nil for nothing
    /// another host needs to hear of (heartbeats, leases).
    func write<T: Sendable>(
        _ what: String, notify: String? = "", limit: Duration = operationLimit, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StoreError) -> T {
        let (client, logger) = (client, logger)
        return try await detached(what, limit: limit) {
            try await client.withTransaction(logger: logger) { connection in
                let value = try await body(connection)
                // Only a transaction that wrote is news: an idle claim that found nothing must
                // not wake every scheduler (its own included) to claim again.
                guard let notify else { return value }
                try await connection.query(
                    "SELECT pg_notify('kiln', \(notify)) WHERE pg_current_xact_id_if_assigned() IS NOT NULL", logger: logger)
                return value
            }
        }
    }

    /// How long one read or write may take, waiting for a connection included: the pool waits
    /// for ever while the database refuses connections, and a page must rather answer 503.
    static let operationLimit = Duration.seconds(15)

    /// Runs `work` in a task of its own, so that canceling the caller does not cancel it (only
    /// `limit` does), and turns what it throws into a `StoreError` about `what`.
    private func detached<T: Sendable>(_ what: String, limit: Duration = operationLimit, _ work: @escaping @Sendable () async throws -> T)
        async throws(StoreError) -> T
    {
        let task = Task { () -> Result<T, any Error> in
            do {
                return .success(try await work())
            } catch {
                return .failure(error)
            }
        }
        let timer = Task {
            try await Task.sleep(for: limit)
            task.cancel()
        }
        let result = await task.value
        timer.cancel()
        switch result {
        case .success(let value): return value
        case .failure where task.isCancelled:
            throw .unreachable(url: location, reason: "\(what) did not end within \(limit)")
        case .failure(let error as StoreError): throw error
        // What the transaction's own body threw (a refused claim) is the answer, not its wrapping.
        case .failure(let error as PostgresTransactionError):
            throw error.closureError as? StoreError ?? .query(what: what, reason: (error.closureError ?? error.beginError ?? error.commitError ?? error).reason)
        case .failure(let error): throw .query(what: what, reason: error.reason)
        }
    }
}
extension Error {
    /// What went wrong, in PostgreSQL's words where it said something: PSQLError's description
    /// hides everything by design.
    var reason: String {
        guard let error = self as? PSQLError else { return "\(self)" }
        if let message = error.serverInfo?[.message] {
            return [error.serverInfo?[.sqlState].map { "\($0): " }, message].compactMap { $0 }.joined()
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}

// MARK: Rows

extension PostgresConnection {
    /// Every row of `query`, for reading by column name.
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        var rows: [PostgresRandomAccessRow] = []
        for try await row in try await self.query(query, logger: logger) { rows.append(row.makeRandomAccess()) }
        return rows
    }

    func row(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRandomAccessRow? {
        try await rows(query, logger: logger).first
    }

    /// Runs `query` for its effect.
    func execute(_ query: PostgresQuery, logger: Logger) async throws {
        try await self.query(query, logger: logger)
    }
}

extension PostgresRandomAccessRow {
    /// The value of column `name`; a NULL decodes to nil for optional types.
    func callAsFunction<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try self[name].decode(T.self)
    }
}

extension Integration {
    init(postgres row: PostgresRandomAccessRow) throws {
        let result = try row("result", as: String?.self).flatMap(IntegrationResult.init(rawValue:))
        var summary: Summary?
        if result != nil, let errors = try row("errors", as: Int?.self) {
            summary = Summary(
                errors: errors, warnings: try row("warnings", as: Int?.self) ?? 0, tests: try row("tests", as: Int?.self) ?? 0,
                testFailures: try row("test_failures", as: Int?.self) ?? 0, coverage: try row("coverage"), errorsChange: try row("errors_change"),
                warningsChange: try row("warnings_change"), testsChange: try row("tests_change"),
                testFailuresChange: try row("test_failures_change"), coverageChange: try row("coverage_change"))
        }
        self.init(
            id: try row("id"), bot: try row("bot"), number: try row("number"),
            cause: IntegrationCause(rawValue: try row("cause")) ?? .manual, commit: try row("commit_sha"), branch: try row("branch"),
            step: IntegrationStep(rawValue: try row("step")) ?? .pending, result: result,
            queuedAt: Date(storeValue: try row("queued_at")), startedAt: try row("started_at", as: Double?.self).map(Date.init(storeValue:)),
            endedAt: try row("ended_at", as: Double?.self).map(Date.init(storeValue:)), summary: summary, reason: try row("reason"),
            expired: try row("expired"), host: try row("host"), owner: try row("owner"), pullRequest: try Self.pullRequest(row))
    }

    private static func pullRequest(_ row: PostgresRandomAccessRow) throws -> PullRequest? {
        guard let number = try row("pull_number", as: Int?.self) else { return nil }
        return PullRequest(
            number: number, title: try row("pull_title", as: String?.self) ?? "", author: try row("pull_author", as: String?.self) ?? "",
            url: try row("pull_url"), head: try row("pull_head", as: String?.self) ?? "", base: try row("pull_base", as: String?.self) ?? "",
            ref: try row("pull_ref", as: String?.self) ?? "", fork: try row("pull_fork"))
    }
}
