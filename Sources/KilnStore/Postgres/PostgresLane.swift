import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Threads and the connections they run transactions on: as many connections as threads, each
/// opened when first needed and kept while it works. A transaction waits for a thread (in order),
/// never for a connection, so a lane never holds more connections than its size; and the
/// statements of a transaction wait for their answers on the thread, so that no thread of Swift's
/// cooperative pool ever blocks.
///
/// The engine has two lanes: one for the store's work, and one of a single connection for
/// heartbeats, leases and `LISTEN`, which no amount of work (log chunks, claims, page reads) can
/// hold up.
final class PostgresLane: Sendable {
    let name: String
    let size: Int
    let eventLoop: any EventLoop
    private let threads: NIOThreadPool
    private let configuration: PostgresConnection.Configuration
    private let idle = Mutex<[PostgresConnection]>([])
    private let nextID = Atomic<Int>(1)
    private let logger: Logger

    init(name: String, size: Int, configuration: PostgresConnection.Configuration, logger: Logger) {
        self.name = name
        self.size = size
        self.configuration = configuration
        self.logger = logger
        eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        threads = NIOThreadPool(numberOfThreads: size)
        threads.start()
    }

    /// Runs `job` on one of the lane's threads, after the jobs submitted before it.
    func submit(_ job: @escaping @Sendable () -> Void) {
        threads.submit { state in
            if state == .active { job() }
        }
    }

    /// Runs `body` with a connection of the lane's own, on the calling thread (one of the lane's).
    /// A connection that closed (the server went away, a time limit closed it) is not used again.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    /// The lane's connection for `LISTEN`, shared with its transactions (a lane of one thread has
    /// one connection): notifications arrive between them.
    func sharedConnection() async throws -> PostgresConnection {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try self.withConnection { $0 } }) }
        }
    }

    private func checkOut() throws -> PostgresConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        do {
            return try PostgresConnection.connect(
                on: eventLoop, configuration: configuration, id: nextID.add(1, ordering: .relaxed).oldValue, logger: logger
            ).wait()
        } catch {
            throw LaneError.connecting(error.reason)
        }
    }

    private func checkIn(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        idle.withLock { $0.append(connection) }
    }

    /// Closes the lane's connections and stops its threads; transactions submitted afterwards
    /// never start.
    func close() {
        for connection in idle.withLock({ idle in
            defer { idle = [] }; return idle
        }) { connection.closeQuietly() }
        threads.shutdownGracefully { _ in }
    }

    deinit {
        close()
    }
}

/// Why a lane could not run a transaction.
enum LaneError: Error {
    /// No connection could be opened: the database is unreachable.
    case connecting(String)
    /// The transaction did not end within its time limit.
    case expired
}

/// The one answer of a transaction: its value or error, or `expired` when its time limit came
/// first, whichever is first. The limit closes the connection the transaction is on, which ends a
/// statement waiting on a lost network.
final class TransactionOutcome<T: Sendable>: Sendable {
    private enum State {
        case waiting
        case running(PostgresConnection)
        case done
    }

    private let promise: EventLoopPromise<T>
    private let state = Mutex(State.waiting)

    init(on eventLoop: any EventLoop) {
        promise = eventLoop.makePromise(of: T.self)
    }

    /// Whether the transaction may start on `connection`: false once its time ran out.
    func start(on connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard case .waiting = state else { return false }
            state = .running(connection)
            return true
        }
    }

    func finish(_ result: Result<T, any Error>) {
        guard
            state.withLock({ state in
                defer { state = .done }; if case .done = state { return false }; return true
            })
        else { return }
        promise.completeWith(result)
    }

    func expire() {
        let running = state.withLock { state -> PostgresConnection?? in
            defer { state = .done }
            switch state {
            case .done: return nil
            case .waiting: return .some(nil)
            case .running(let connection): return .some(connection)
            }
        }
        guard let running else { return }
        running?.closeQuietly()
        promise.fail(LaneError.expired)
    }

    /// The answer; waiting for it is not canceled with the calling task, as a write that was
    /// asked for lands.
    var result: Result<T, any Error> {
        get async {
            do { return .success(try await promise.futureResult.get()) } catch { return .failure(error) }
        }
    }
}

extension PostgresConnection {
    /// Closes the connection, keeping it alive until it is closed (postgres-nio requires it).
    func closeQuietly() {
        close().whenComplete { _ in withExtendedLifetime(self) {} }
    }
}
