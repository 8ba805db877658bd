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

/// A real PgBouncer (Debian's `pgbouncer`) in front of one database of the tests' PostgreSQL
/// server, on 127.0.0.1, with two names for that database: `session` pooled in session mode and
/// `transaction` in transaction mode. It runs as the `postgres` user (PgBouncer refuses root)
/// until `stop()`.
public final class PgBouncer: Sendable {
    public enum StartError: Error, CustomStringConvertible {
        case notInstalled
        case failed(String)

        public var description: String {
            switch self {
            case .notInstalled: "PgBouncer is not installed: apt-get install pgbouncer (make test installs it)"
            case .failed(let output): "PgBouncer did not start: \(output)"
            }
        }
    }

    public let port: Int
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    /// Starts PgBouncer for the database of `url` (a URL of `PostgresServer.shared`).
    public init(for url: String) async throws {
        let executable = "/usr/sbin/pgbouncer"
        guard FileManager.default.isExecutableFile(atPath: executable) else { throw StartError.notInstalled }
        let (serverPort, _) = try await PostgresServer.shared.address()
        guard let database = url.split(separator: "/").last?.split(separator: "?").first.map(String.init) else {
            throw StartError.failed("no database in \(url)")
        }
        directory = try TemporaryDirectory("kiln-pgbouncer")
        port = SMTPServer.freePort()
        let target = "host=127.0.0.1 port=\(serverPort) dbname=\(database) user=\(PostgresServer.superuser)"
        try directory.write(
            "pgbouncer.ini",
            """
            [databases]
            session = \(target) pool_mode=session
            transaction = \(target) pool_mode=transaction

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = trust
            auth_file = \(directory.url("users.txt"))
            default_pool_size = 20
            max_client_conn = 200
            ignore_startup_parameters = extra_float_digits,application_name

            """)
        try directory.write("users.txt", "\"\(PostgresServer.superuser)\" \"\"\n")
        var command = [executable, directory.url("pgbouncer.ini")]
        if getuid() == 0 {
            let chown = try runProcessSync("/usr/bin/chown", ["-R", "postgres:postgres", directory.path])
            guard chown.status == 0 else { throw StartError.failed("chown: \(chown.standardError)") }
            command = ["/usr/sbin/runuser", "-u", "postgres", "--"] + command
        }
        process = try ChildProcess(command[0], Array(command.dropFirst()))
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if !GitDaemon.isFree(port) { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.killGroup()
        throw StartError.failed(process.standardError + process.standardOutput)
    }

    /// The URL of the database through PgBouncer, pooled in `mode` (`session` or `transaction`).
    public func url(_ mode: String) -> String {
        "postgres://\(PostgresServer.superuser)@127.0.0.1:\(port)/\(mode)?sslmode=disable"
    }

    public func stop() {
        process.killGroup()
    }

    deinit {
        process.killGroup()
    }
}
