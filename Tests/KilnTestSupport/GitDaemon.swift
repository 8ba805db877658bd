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
    private let process = Process()
    public let port: Int

    /// Serves every repository under `directory` (read-only) on 127.0.0.1, on `port` when given
    /// (a server back where it was).
    public init(serving directory: String, port given: Int? = nil) throws {
        var chosen = given
        for _ in 0..<20 where chosen == nil {
            let candidate = Int.random(in: 20_000..<60_000)
            if Self.isFree(candidate) {
                chosen = candidate
                break
            }
        }
        guard let port = chosen else { throw GitFixtureError.failed("daemon", "no free port found") }
        self.port = port
        // The daemon itself rather than the `git daemon` wrapper, so that ending it leaves no child.
        let execPath = try runProcessSync("/usr/bin/git", ["--exec-path"]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        process.executableURL = URL(fileURLWithPath: execPath + "/git-daemon")
        process.arguments = [
            "--reuseaddr", "--export-all", "--listen=127.0.0.1", "--port=\(port)", "--base-path=\(directory)", directory,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until it accepts connections.
        for _ in 0..<200 {
            if !Self.isFree(port) { return }
            usleep(10_000)
        }
        throw GitFixtureError.failed("daemon", "git daemon did not start on port \(port)")
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
