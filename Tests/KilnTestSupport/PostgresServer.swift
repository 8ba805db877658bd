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
import Synchronization

/// A real PostgreSQL server for the tests: Debian's `postgresql`, initialised in a temp dir and
/// started with `pg_ctl` on 127.0.0.1 and a Unix socket, once per test process and stopped when
/// it exits. Each caller gets a database of its own (`database()`).
///
/// As root (CI, this machine) the server runs as the `postgres` user, which the package creates.
public actor PostgresServer {
    public enum StartError: Error, CustomStringConvertible {
        case notInstalled
        case failed(String)

        public var description: String {
            switch self {
            case .notInstalled: "PostgreSQL is not installed: apt-get install postgresql (make test installs it)"
            case .failed(let output): "PostgreSQL did not start: \(output)"
            }
        }
    }

    public static let shared = PostgresServer()

    /// The superuser initdb makes, whom the tests connect as.
    static let superuser = "kiln"
    public let user = PostgresServer.superuser
    private var started: (port: Int, socketDirectory: String)?
    private var databases = 0

    /// Where the tests' server is, started on first use.
    public func address() throws -> (port: Int, socketDirectory: String) {
        if let started { return started }
        let server = try Self.start()
        started = server
        return server
    }

    /// A new, empty database on the shared server: its URL over TCP on 127.0.0.1.
    public func database() async throws -> String {
        let (port, socketDirectory) = try address()
        databases += 1
        let name = "kiln_\(getpid())_\(databases)"
        try await psql("CREATE DATABASE \(name)", port: port, socketDirectory: socketDirectory)
        return "postgres://\(user)@127.0.0.1:\(port)/\(name)?sslmode=disable"
    }

    /// Runs `sql` on the server's `postgres` database.
    public func psql(_ sql: String, database: String = "postgres") async throws {
        let (port, socketDirectory) = try address()
        try await psql(sql, port: port, socketDirectory: socketDirectory, database: database)
    }

    /// The first column of `sql`'s rows on `database` (a name or a URL's last component).
    public func query(_ sql: String, database: String) async throws -> [String] {
        let (port, socketDirectory) = try address()
        let name = database.split(separator: "/").last.map { String($0.split(separator: "?")[0]) } ?? database
        let result = try await runProcess(
            "/usr/bin/psql", ["-h", socketDirectory, "-p", "\(port)", "-U", Self.superuser, "-d", name, "-v", "ON_ERROR_STOP=1", "-tAqc", sql])
        guard result.status == 0 else { throw StartError.failed("psql \(sql): \(result.standardError)") }
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    private func psql(_ sql: String, port: Int, socketDirectory: String, database: String = "postgres") async throws {
        try await Self.psql(sql, port: port, socketDirectory: socketDirectory, database: database)
    }

    static func psql(_ sql: String, port: Int, socketDirectory: String, database: String = "postgres") async throws {
        let result = try await runProcess(
            "/usr/bin/psql", ["-h", socketDirectory, "-p", "\(port)", "-U", superuser, "-d", database, "-v", "ON_ERROR_STOP=1", "-qc", sql])
        guard result.status == 0 else { throw StartError.failed("psql \(sql): \(result.standardError)") }
    }

    /// The binaries of the newest PostgreSQL installed (`/usr/lib/postgresql/N/bin`).
    static func binaries() throws(StartError) -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        guard let newest = versions.last, FileManager.default.isExecutableFile(atPath: "\(root)/\(newest)/bin/pg_ctl"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/psql")
        else { throw .notInstalled }
        return "\(root)/\(newest)/bin"
    }

    /// Stops the server of `data` at once (SIGQUIT to the postmaster) and removes its directory
    /// once the postmaster is gone: removed while it was still shutting down, the directory lost
    /// its files but kept `data`, where the server was still writing (161 left in /tmp in a day).
    static func stop(_ data: String) {
        if let pidFile = try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8),
            let pid = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }), pid > 0
        {
            sendSignal(SIGQUIT, to: pid)
            // An immediate shutdown takes milliseconds; a server that outlasts this is left to it.
            var waited = 0
            while isRunning(pid), waited < 500 {
                usleep(10_000)
                waited += 1
            }
        }
        try? FileManager.default.removeItem(atPath: (data as NSString).deletingLastPathComponent)
    }

    /// Whether `pid` is there and not a zombie (as root the postmaster is runuser's child, which
    /// reaps it; otherwise it is this process's, reaped whenever Foundation gets to it).
    private static func isRunning(_ pid: Int32) -> Bool {
        guard sendSignal(0, to: pid) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return !stat.contains(") Z ")
    }

    /// Servers left by test processes that were stopped before they could stop them.
    static func stopAbandoned() {
        let temporary = FileManager.default.temporaryDirectory.path
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [] where entry.hasPrefix("kiln-postgres-") {
            let base = temporary + "/" + entry
            guard let owner = try? String(contentsOfFile: base + "/test-process", encoding: .utf8), let pid = Int32(owner),
                sendSignal(0, to: pid) != 0
            else { continue }
            stop(base + "/data")
        }
    }

    private static func start() throws -> (port: Int, socketDirectory: String) {
        let server = try start(listen: "127.0.0.1", wrapper: [])
        return (server.port, server.socketDirectory)
    }

    /// A server of its own in network namespace `namespace`, listening on `address` there (and on
    /// a Unix socket, through which the test talks to it from outside), stopped when the test
    /// process exits or `stop()` is called.
    public static func start(inNamespace namespace: String, address: String) throws -> Isolated {
        try start(listen: address, wrapper: [NetworkLab.ip, "netns", "exec", namespace])
    }

    /// A server of its own on 127.0.0.1 that takes at most `maxConnections` (superusers
    /// included, as the tests connect), to fill it.
    public static func start(maxConnections: Int) throws -> Isolated {
        try start(listen: "127.0.0.1", wrapper: [], maxConnections: maxConnections)
    }

    /// A server that is not the shared one.
    public struct Isolated: Sendable {
        public let address: String
        public let port: Int
        public let socketDirectory: String
        let data: String

        /// A new, empty database on it: its URL over TCP on `address`.
        public func database(_ name: String) async throws -> String {
            try await PostgresServer.psql("CREATE DATABASE \(name)", port: port, socketDirectory: socketDirectory)
            return "postgres://\(PostgresServer.superuser)@\(address):\(port)/\(name)?sslmode=disable"
        }

        public func stop() {
            PostgresServer.stop(data)
        }

        /// Runs `sql` on `database` as the superuser.
        public func psql(_ sql: String, database: String = "postgres") async throws {
            try await PostgresServer.psql(sql, port: port, socketDirectory: socketDirectory, database: database)
        }

        /// The first column of `sql`'s rows on `database`.
        public func query(_ sql: String, database: String = "postgres") async throws -> [String] {
            let result = try await runProcess(
                "/usr/bin/psql",
                ["-h", socketDirectory, "-p", "\(port)", "-U", PostgresServer.superuser, "-d", database, "-v", "ON_ERROR_STOP=1", "-tAqc", sql])
            guard result.status == 0 else { throw StartError.failed("psql \(sql): \(result.standardError)") }
            return result.standardOutput.split(separator: "\n").map(String.init)
        }

        /// Freezes the server where it stands (SIGSTOP to the postmaster and every backend): it
        /// neither answers nor refuses, as a database host that stopped does.
        public func pause() {
            signalServer(SIGSTOP)
        }

        /// Lets a paused server run on (SIGCONT).
        public func resume() {
            signalServer(SIGCONT)
        }

        private func signalServer(_ signal: Int32) {
            guard let pidFile = try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8),
                let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }), postmaster > 0
            else { return }
            // The backends are the postmaster's children: each /proc/PID/stat names its parent.
            var processes = [postmaster]
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 1, Int32(fields[1]) == postmaster { processes.append(pid) }
            }
            for pid in processes { sendSignal(signal, to: pid) }
        }
    }

    private static func start(listen: String, wrapper: [String], maxConnections: Int = 300) throws -> Isolated {
        let bin = try binaries()
        stopAbandoned()
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-postgres-\(UUID().uuidString.prefix(8))").path
        let data = base + "/data"
        let socketDirectory = base + "/socket"
        try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        func run(_ tool: String, _ arguments: [String]) throws -> ProcessOutput {
            asRoot
                ? try runProcessSync("/usr/sbin/runuser", ["-u", "postgres", "--", "\(bin)/\(tool)"] + arguments)
                : try runProcessSync("\(bin)/\(tool)", arguments)
        }
        if asRoot {
            let chown = try runProcessSync("/usr/bin/chown", ["-R", "postgres:postgres", base])
            guard chown.status == 0 else {
                throw StartError.failed("chown: \(chown.standardError) (is the postgres user there? apt-get install postgresql)")
            }
        }
        let initdb = try run("initdb", ["-D", data, "-A", "trust", "-U", superuser, "-E", "UTF8", "--no-sync"])
        guard initdb.status == 0 else { throw StartError.failed("initdb: \(initdb.standardError)") }
        if listen != "127.0.0.1" {
            // The hosts of a lab connect from their own addresses on the lab's network.
            let rule = "host all all samenet trust\n"
            guard let handle = FileHandle(forWritingAtPath: data + "/pg_hba.conf") else { throw StartError.failed("cannot open \(data)/pg_hba.conf") }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(rule.utf8))
            try handle.close()
        }
        // The server runs as a child of this process, not daemonised by pg_ctl: Foundation's
        // Process learns that a child ended only once all its descendants let go of it.
        for _ in 0..<5 {
            let port = SMTPServer.freePort()
            let server = Process()
            let postgres =
                ["\(bin)/postgres", "-D", data, "-p", "\(port)", "-k", socketDirectory]
                + [
                    "listen_addresses=\(listen)", "fsync=off", "max_connections=\(maxConnections)", "synchronous_commit=off",
                ].flatMap { ["-c", $0] }
            let command = wrapper + (asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + postgres : postgres)
            server.executableURL = URL(fileURLWithPath: command[0])
            server.arguments = Array(command.dropFirst())
            _ = FileManager.default.createFile(atPath: base + "/server.log", contents: nil)
            let log = FileHandle(forWritingAtPath: base + "/server.log")
            server.standardOutput = log
            server.standardError = log
            server.standardInput = FileHandle.nullDevice
            try server.run()
            let deadline = Date().addingTimeInterval(30)
            while server.isRunning, Date() < deadline {
                if try runProcessSync("\(bin)/pg_isready", ["-q", "-h", socketDirectory, "-p", "\(port)"]).status == 0 {
                    try "\(getpid())".write(toFile: base + "/test-process", atomically: true, encoding: .utf8)
                    started(data)
                    return Isolated(address: listen, port: port, socketDirectory: socketDirectory, data: data)
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            if server.isRunning { server.terminate() }
        }
        let log = (try? String(contentsOfFile: base + "/server.log", encoding: .utf8)) ?? ""
        throw StartError.failed("pg_ctl start failed: \(log.suffix(2000))")
    }

    private static let running = Mutex<[String]>([])

    /// Remembers a started server's data directory, to stop it when the test process exits.
    private static func started(_ data: String) {
        let first = running.withLock { running in
            running.append(data)
            return running.count == 1
        }
        guard first else { return }
        // No process may be started while this one exits: the servers are told to stop with a signal.
        atexit {
            for data in PostgresServer.running.withLock({ $0 }) { PostgresServer.stop(data) }
        }
    }
}
