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
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Threads and the connections they run transactions on: at most as many connections as
/// threads, each opened when first needed and kept while it works. A transaction waits for a
/// thread (in order), then, when the lane's budget (`allowed`, at most its size) is held, for a
/// connection another thread gives back; so the lane never holds more connections than its
/// budget, and the statements of a transaction wait for their answers on the thread, so that no
/// thread of Swift's cooperative pool ever blocks.
///
/// The engine has two lanes: one for the store's work, and one of a single connection for
/// heartbeats, leases and `LISTEN`, which no amount of work (log chunks, claims, page reads) can
/// hold up. The work lane's budget follows the host's share of the database (`ConnectionBudget`).
final class PostgresLane: Sendable {
    let name: String
    let size: Int
    let eventLoop: any EventLoop
    private let threads: NIOThreadPool
    private let configuration: PostgresConnection.Configuration
    private let pool: Mutex<Pool>
    /// Signalled when a connection is given back or the budget grows; waiters also look again
    /// every `Self.recheck`, so a signal sent between their look and their wait costs only that.
    private let given = NSCondition()
    private let nextID = Atomic<Int>(1)
    private let logger: Logger
    /// Where a wait for a free connection is told (a command's standard error).
    private let notices: Logger

    private struct Pool {
        var allowed: Int
        /// Connections open, idle or in use.
        var open = 0
        var idle: [PostgresConnection] = []
    }

    static let recheck: TimeInterval = 0.05
    /// How long opening a connection keeps trying while PostgreSQL has none free ("too many
    /// clients"): as long as hosts take to give some back when one joins, and more.
    static let fullWait = Duration.seconds(30)

    init(name: String, size: Int, configuration: PostgresConnection.Configuration, logger: Logger, notices: Logger) {
        self.name = name
        self.size = size
        self.configuration = configuration
        self.logger = logger
        self.notices = notices
        pool = Mutex(Pool(allowed: size))
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

    /// How many connections the lane may hold at once: 1 to its size. Idle connections beyond a
    /// smaller budget are closed now, those in use when they are given back.
    func setAllowed(_ allowed: Int) {
        let closing = pool.withLock { pool in
            pool.allowed = min(size, max(1, allowed))
            var closing: [PostgresConnection] = []
            while pool.open > pool.allowed, let connection = pool.idle.popLast() {
                pool.open -= 1
                closing.append(connection)
            }
            return closing
        }
        for connection in closing { connection.closeQuietly() }
        wake()
    }

    /// The connections the lane holds, and may hold.
    var holding: (open: Int, allowed: Int) { pool.withLock { ($0.open, $0.allowed) } }

    private enum Step {
        case use(PostgresConnection)
        case connect
        case wait
    }

    private func checkOut() throws -> PostgresConnection {
        while true {
            let step = pool.withLock { pool -> Step in
                while let connection = pool.idle.popLast() {
                    if !connection.isClosed { return .use(connection) }
                    pool.open -= 1
                }
                guard pool.open < pool.allowed else { return .wait }
                pool.open += 1
                return .connect
            }
            switch step {
            case .use(let connection):
                return connection
            case .connect:
                do {
                    return try connect()
                } catch {
                    pool.withLock { $0.open -= 1 }
                    wake()
                    throw error
                }
            case .wait:
                given.lock()
                _ = given.wait(until: Date(timeIntervalSinceNow: Self.recheck))
                given.unlock()
            }
        }
    }

    /// A new connection; while PostgreSQL has none free, tried again for up to `fullWait`.
    private func connect() throws -> PostgresConnection {
        let deadline = MonotonicClock.system.now + Self.fullWait
        var delay = Duration.milliseconds(50)
        var warned = false
        while true {
            do {
                return try PostgresConnection.connect(
                    on: eventLoop, configuration: configuration, id: nextID.add(1, ordering: .relaxed).oldValue, logger: logger
                ).wait()
            } catch let error where Self.isFull(error) && MonotonicClock.system.now + delay < deadline {
                if !warned {
                    notices.warning("PostgreSQL has no free connection (\(error.reason)); trying again for up to \(Self.fullWait)")
                    warned = true
                }
                Thread.sleep(forTimeInterval: delay.seconds)
                delay = min(delay * 2, .seconds(2))
            } catch {
                throw LaneError.connecting(error.reason)
            }
        }
    }

    /// Whether `error` is PostgreSQL refusing a connection because it has no slot left
    /// (SQLSTATE 53300, "too many clients already", or the reserved slots' wording).
    static func isFull(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "53300"
    }

    private func checkIn(_ connection: PostgresConnection) {
        let close = pool.withLock { pool -> Bool in
            if connection.isClosed {
                pool.open -= 1
                return false
            }
            guard pool.open <= pool.allowed else {
                pool.open -= 1
                return true
            }
            pool.idle.append(connection)
            return false
        }
        if close { connection.closeQuietly() }
        wake()
    }

    private func wake() {
        given.lock()
        given.signal()
        given.unlock()
    }

    /// Closes the lane's connections and stops its threads; transactions submitted afterwards
    /// never start.
    func close() {
        let idle = pool.withLock { pool in
            defer {
                pool.open -= pool.idle.count
                pool.idle = []
            }
            return pool.idle
        }
        for connection in idle { connection.closeQuietly() }
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
