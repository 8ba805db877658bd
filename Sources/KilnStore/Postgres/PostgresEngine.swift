import Foundation
import KilnCore
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The shared store: one PostgreSQL database that several `kiln serve` hosts use at once.
public typealias PostgresStore = DatabaseStore<PostgresEngine>

/// PostgreSQL through postgres-nio. `PostgresClient` is the connection pool, which the engine runs
/// for its whole life. The store's transactions are synchronous (`SQLConnection`): each runs on a
/// thread of the engine's own pool, on a connection leased for it, waiting for each statement's
/// answer, so that no thread of Swift's cooperative pool ever blocks.
///
/// Every transaction that wrote ends with `NOTIFY kiln`, which a connection of the engine's own
/// (`PostgresListener`) hears, on this host and every other, and turns into changes. Claims take
/// rows with `FOR UPDATE … SKIP LOCKED` and the bot's row with them, so "one integration per bot
/// at a time" holds across hosts without a coordinator. Logs are kept in the database.
public final class PostgresEngine: StoreEngine {
    let client: PostgresClient
    /// The URL as messages may show it (password redacted).
    public let location: String
    public let logsDirectory: String?
    public let hub: ChangeHub
    let logger: Logger
    private let threads: NIOThreadPool
    private let running: Task<Void, Never>

    public var logsInDatabase: Bool { true }
    public var sharedByHosts: Bool { true }

    /// Threads that run transactions: as many transactions at once as the pool has connections
    /// for, beyond which they wait for a connection anyway.
    static let threadCount = 8

    init(configuration: PostgresClient.Configuration, location: String, logsDirectory: String?, logger: Logger) {
        var configuration = configuration
        configuration.options.connectTimeout = .seconds(5)
        self.location = location
        self.logsDirectory = logsDirectory
        self.logger = logger
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        threads = NIOThreadPool(numberOfThreads: Self.threadCount)
        threads.start()
        running = Task { await client.run() }
        hub = ChangeHub { onChange in PostgresListener(client: client, logger: logger, onChange: onChange) }
    }

    /// Closes the pool's connections; the store cannot be used afterwards.
    public func close() {
        running.cancel()
        threads.shutdownGracefully { _ in }
    }

    deinit {
        running.cancel()
        threads.shutdownGracefully { _ in }
    }

    public func read<T: Sendable>(_ what: String, _ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws(StoreError) -> T {
        // One snapshot for all the statements of a read, as SQLite's reads have.
        try await transaction(what, begin: "START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", notify: nil, limit: operationLimit, body)
    }

    public func write<T: Sendable>(
        _ what: String, notify: ChangeKind?, limit: Duration, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws(StoreError) -> T {
        try await transaction(what, begin: "BEGIN", notify: notify, limit: limit, body)
    }

    /// Runs `body` between `begin` and `COMMIT` on a leased connection and a thread of the
    /// engine's. A transaction that wrote ends with `NOTIFY kiln` carrying `notify`, so that only
    /// news wakes the other hosts: an idle claim that found nothing must not wake every
    /// scheduler, its own included, to claim again.
    ///
    /// It is not canceled with the caller, only by `limit`: then the connection is closed (which
    /// ends a statement waiting on a lost network) and the caller hears the database is unreachable.
    private func transaction<T: Sendable>(
        _ what: String, begin: String, notify: ChangeKind?, limit: Duration, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws(StoreError) -> T {
        let (client, threads, logger) = (client, threads, logger)
        let leased = LeasedConnection()
        let task = Task { () -> Result<T, any Error> in
            do {
                return .success(
                    try await client.withConnection { connection in
                        leased.connection.withLock { $0 = connection }
                        return try await threads.runIfActive {
                            let db = PostgresSQLConnection(connection: connection, logger: logger)
                            try db.execute(begin)
                            do {
                                let value = try body(db)
                                if let notify {
                                    try db.execute("SELECT pg_notify('kiln', ?) WHERE pg_current_xact_id_if_assigned() IS NOT NULL", notify.rawValue)
                                }
                                try db.execute("COMMIT")
                                return value
                            } catch {
                                _ = try? db.execute("ROLLBACK")
                                throw error
                            }
                        }
                    })
            } catch {
                return .failure(error)
            }
        }
        let timer = Task {
            try await Task.sleep(for: limit)
            task.cancel()
            try? await leased.connection.withLock { $0 }?.close()
        }
        let result = await task.value
        timer.cancel()
        switch result {
        case .success(let value): return value
        case .failure where task.isCancelled: throw .unreachable(url: location, reason: "\(what) did not end within \(limit)")
        case .failure(let error as StoreError): throw error
        case .failure(let error): throw .query(what: what, reason: error.reason)
        }
    }
}

extension DatabaseStore where Engine == PostgresEngine {
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
        let engine = PostgresEngine(configuration: target.client, location: location, logsDirectory: logsDirectory, logger: background)
        do {
            try await engine.write("migrating the database") { db in try PostgresHistory.migrate(db) }
        } catch {
            engine.close()
            throw error
        }
        return PostgresStore(engine: engine)
    }

    /// One connection and `SELECT 1`, failing within seconds: the pool would wait for ever.
    private static func check(_ target: PostgresURL.Target, location: String) async throws(StoreError) {
        do {
            var configuration = try target.connection()
            configuration.options.connectTimeout = .seconds(5)
            let logger = Logger(label: "kiln.postgres")
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            do {
                try await connection.query("SELECT 1", logger: logger)
                try await connection.close()
            } catch {
                try? await connection.close()
                throw error
            }
        } catch {
            throw .unreachable(url: location, reason: error.reason)
        }
    }

    /// The URL as messages may show it (password redacted).
    public var location: String { engine.location }

    /// Closes the pool's connections; the store cannot be used afterwards.
    public func close() {
        engine.close()
    }

    /// The migrations applied, oldest first.
    public func appliedMigrations() async throws(StoreError) -> [String] {
        try await read("reading the migrations") { db in try db.rows("SELECT name FROM kiln_migration ORDER BY applied_at, name").map { $0["name"] } }
    }
}

/// The connection a transaction runs on, for its time limit to close.
private final class LeasedConnection: Sendable {
    let connection = Mutex<PostgresConnection?>(nil)
}

/// A leased connection inside one of `PostgresEngine`'s transactions, on a thread of the
/// engine's: each statement waits for its answer. `?` placeholders become `$1`, `$2`, ….
struct PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger

    var dialect: SQLDialect { .postgres }

    func rows(_ sql: String, _ arguments: [any SQLBindable]) throws -> [SQLRow] {
        let result = try connection.query(Self.query(sql, arguments), logger: logger).wait()
        guard let first = result.rows.first else { return [] }
        let columns = SQLRow.Columns.of(sql) { first.map(\.columnName) }
        return result.rows.map { row in SQLRow(columns: columns, values: row.map(Self.value)) }
    }

    func execute(_ sql: String, _ arguments: [any SQLBindable]) throws -> Int {
        try connection.query(Self.query(sql, arguments), logger: logger).wait().metadata.rows ?? 0
    }

    static func query(_ sql: String, _ arguments: [any SQLBindable]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument.sqlValue {
            case .null: bindings.appendNull()
            case .integer(let value): bindings.append(value)
            case .real(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(bytes: value))
            case .bool(let value): bindings.append(value)
            }
        }
        return PostgresQuery(unsafeSQL: numbered(sql), binds: bindings)
    }

    /// `?` → `$1`, `$2`, … outside string literals.
    static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var inLiteral = false
        var number = 0
        for character in sql {
            if character == "'" { inLiteral.toggle() }
            if character == "?" && !inLiteral {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    static func value(_ cell: PostgresCell) -> SQLValue {
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .numeric: return .real(Double(try cell.decode(String.self)) ?? 0)
            case .bool: return .bool(try cell.decode(Bool.self))
            case .bytea: return .blob(Array(buffer: try cell.decode(ByteBuffer.self)))
            default: return .text(try cell.decode(String.self))
            }
        } catch {
            return .null
        }
    }
}

extension Error {
    /// What went wrong, in PostgreSQL's words where it said something: PSQLError's description
    /// hides everything by design.
    var reason: String {
        if let error = self as? PostgresTransactionError {
            return (error.closureError ?? error.beginError ?? error.commitError ?? error).reason
        }
        guard let error = self as? PSQLError else { return "\(self)" }
        if let message = error.serverInfo?[.message] {
            return [error.serverInfo?[.sqlState].map { "\($0): " }, message].compactMap { $0 }.joined()
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
