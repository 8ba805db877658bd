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

/// A PostgreSQL server of the benchmark's own (Debian's `postgresql`), on 127.0.0.1 with its data
/// in the benchmark's directory; as root it runs as the `postgres` user.
final class BenchPostgres: @unchecked Sendable {
    // `server` is only started and waited for by the benchmark's one task.
    private let server = Process()
    let port: Int
    let directory: String
    private let bin: String

    /// `maxConnections`: the server's limit (PostgreSQL's default is 100).
    init(directory: String, maxConnections: Int = 300) throws {
        let root = "/usr/lib/postgresql"
        guard let version = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).max() else {
            throw BenchError.unexpected("PostgreSQL is not installed: apt-get install postgresql (make bench installs it)")
        }
        bin = "\(root)/\(version)/bin"
        self.directory = directory
        port = 21_000 + Int.random(in: 0..<2000)
        try FileManager.default.createDirectory(atPath: directory + "/socket", withIntermediateDirectories: true)
        if getuid() == 0 { try command("/usr/bin/chown", ["-R", "postgres:postgres", directory]) }
        try run("initdb", ["-D", directory + "/data", "-A", "trust", "-U", "kiln", "-E", "UTF8", "--no-sync"])
        // The server is a child of the benchmark, not daemonised by pg_ctl: Foundation's Process
        // would learn that pg_ctl ended only once the server it leaves behind did.
        try Self.start(
            server,
            asPostgres: [
                "\(bin)/postgres", "-D", directory + "/data", "-p", "\(port)", "-k", directory + "/socket",
                "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=\(maxConnections)", "-c", "fsync=off", "-c", "synchronous_commit=off",
            ])
        let deadline = Date().addingTimeInterval(30)
        while (try? command("\(bin)/pg_isready", ["-q", "-h", directory + "/socket", "-p", "\(port)"])) == nil {
            guard Date() < deadline, server.isRunning else { throw BenchError.unexpected("PostgreSQL did not start (see \(directory))") }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    /// A new database: its URL.
    func database(_ name: String) throws -> String {
        try command(
            "/usr/bin/psql", ["-h", directory + "/socket", "-p", "\(port)", "-U", "kiln", "-d", "postgres", "-qc", "CREATE DATABASE \(name)"])
        return "postgres://kiln@127.0.0.1:\(port)/\(name)?sslmode=disable"
    }

    /// Stops the server at once (SIGQUIT to the postmaster).
    func stop() {
        guard
            let pid = (try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8))?.split(separator: "\n").first.flatMap({
                Int32($0)
            })
        else { return }
        sendSignal(SIGQUIT, to: pid)
        server.waitUntilExit()
    }

    /// Runs an initdb-like tool to its end.
    private func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        try Self.start(process, asPostgres: ["\(bin)/\(tool)"] + arguments)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError.commandFailed(([tool] + arguments).joined(separator: " ")) }
    }

    /// Starts `line` as the `postgres` user when this is root, without pipes (a server left
    /// running would hold them open, and a reader would wait for it).
    private static func start(_ process: Process, asPostgres line: [String]) throws {
        let line = (getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + line
        process.executableURL = URL(fileURLWithPath: line[0])
        process.arguments = Array(line.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }
}
