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

/// `git daemon` serving a directory over git:// on loopback: a real network remote for tests.
public final class GitDaemon: @unchecked Sendable {
    // Only touched by the test that owns it.
    private let process: Process
    public let port: Int

    /// Serves every repository under `directory` (read-only) on 127.0.0.1, on `port` when given
    /// (a server back where it was). A daemon that could not bind its port (another test took it
    /// between the look and the bind) is started again on another; one that is slow to listen on
    /// a loaded machine is waited for, up to 30 s.
    public init(serving directory: String, port given: Int? = nil) throws {
        // The daemon itself rather than the `git daemon` wrapper, so that ending it leaves no child.
        let execPath = try runProcessSync("/usr/bin/git", ["--exec-path"]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        var exits: [String] = []
        for _ in 0..<(given == nil ? 5 : 1) {
            let port = given ?? SMTPServer.freePort()
            guard port != 0 else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: execPath + "/git-daemon")
            process.arguments = [
                "--reuseaddr", "--export-all", "--listen=127.0.0.1", "--port=\(port)", "--base-path=\(directory)", directory,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Wait until it accepts connections, or has ended.
            for _ in 0..<3000 where process.isRunning {
                if !Self.isFree(port) {
                    self.process = process
                    self.port = port
                    return
                }
                usleep(10_000)
            }
            guard !process.isRunning else {
                process.killAndWait()
                throw GitFixtureError.failed("daemon", "git daemon did not listen on port \(port) within 30 s")
            }
            exits.append("port \(port): exited with status \(process.terminationStatus)")
        }
        throw GitFixtureError.failed("daemon", "git daemon did not start: \(exits.isEmpty ? "no free port found" : exits.joined(separator: "; "))")
    }

    /// The git:// URL of the repository at `relative` under the served directory.
    public func url(_ relative: String) -> String { "git://127.0.0.1:\(port)/\(relative)" }

    deinit {
        // SIGKILL: a child started from a Swift concurrency thread may have SIGTERM blocked.
        process.killAndWait()
    }

    /// Whether nothing listens on `port` on loopback.
    static func isFree(_ port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result != 0
    }
}
