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

/// OpenSSH's sshd on 127.0.0.1 with a host key and one authorized client key made for the test:
/// a real ssh:// remote (git-upload-pack runs as the current user).
public final class SSHServer: @unchecked Sendable {
    public let port: Int
    public let directory: TemporaryDirectory
    /// The private key that may log in, and one that may not.
    public let clientKey: String
    public let strangerKey: String
    public let user: String

    public init() throws {
        let sshd = "/usr/sbin/sshd"
        guard FileManager.default.isExecutableFile(atPath: sshd) else {
            throw GitFixtureError.failed("sshd", "sshd is missing: apt-get install openssh-server (make test installs it)")
        }
        directory = try TemporaryDirectory("kiln-ssh")
        clientKey = directory.url("client")
        strangerKey = directory.url("stranger")
        for key in [directory.url("host"), clientKey, strangerKey] {
            // ECDSA in PEM form: what Debian's libssh2 1.10 both reads and negotiates with OpenSSH 9.
            let made = try runProcessSync("/usr/bin/ssh-keygen", ["-q", "-t", "ecdsa", "-b", "256", "-m", "PEM", "-N", "", "-f", key])
            guard made.status == 0 else { throw GitFixtureError.failed("ssh-keygen", made.standardError) }
        }
        try FileManager.default.copyItem(atPath: clientKey + ".pub", toPath: directory.url("authorized_keys"))
        user =
            ProcessInfo.processInfo.environment["USER"]
            ?? (try? runProcessSync("/usr/bin/id", ["-un"]).standardOutput
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? "root"
        // sshd binds its port only after it has daemonized, so a port taken between the look and
        // the bind shows only in its log: then it is started again on another port.
        var failures: [String] = []
        for attempt in 0..<5 {
            let port = SMTPServer.freePort()
            guard port != 0 else { continue }
            guard let refused = try Self.start(sshd, port: port, log: directory.url("sshd-\(attempt).log"), in: directory) else {
                self.port = port
                return
            }
            failures.append("port \(port): \(refused)")
        }
        throw GitFixtureError.failed("sshd", "sshd did not start: \(failures.joined(separator: "; "))")
    }

    /// Starts sshd on `port`, logging to `log`: nil once it listens, what its log says once that
    /// says it could not bind the port ("Cannot bind any address"); an error after 30 s of neither.
    private static func start(_ sshd: String, port: Int, log: String, in directory: TemporaryDirectory) throws -> String? {
        try """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(directory.url("host"))
        PidFile \(directory.url("sshd.pid"))
        AuthorizedKeysFile \(directory.url("authorized_keys"))
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        PubkeyAuthentication yes
        PermitRootLogin prohibit-password
        StrictModes no
        UsePAM no

        """.write(toFile: directory.url("sshd_config"), atomically: true, encoding: .utf8)
        // sshd insists on its privilege separation directory.
        try? FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
        // Not a child of the test process (sshd daemonizes without -D): Foundation's Process in
        // this process loses track of its own children's exits while a child sshd serves a session.
        let started = try runProcessSync(sshd, ["-f", directory.url("sshd_config"), "-E", log])
        guard started.status == 0 else { throw GitFixtureError.failed("sshd", started.standardError) }
        // Up to 30 s: with both cores compiling beside it, sshd took over 3 s to listen.
        var said = ""
        for _ in 0..<3000 {
            if !GitDaemon.isFree(port) { return nil }
            said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if said.contains("Cannot bind") { return said.components(separatedBy: .newlines).filter { !$0.isEmpty }.joined(separator: " ") }
            usleep(10_000)
        }
        throw GitFixtureError.failed("sshd", "sshd did not listen on port \(port) within 30 s; its log: \(said)")
    }

    /// The ssh:// URL of the repository at `path` on this server.
    public func url(_ path: String) -> String { "ssh://\(user)@127.0.0.1:\(port)\(path)" }

    deinit {
        if let text = try? String(contentsOfFile: directory.url("sshd.pid"), encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            sendSignal(SIGKILL, to: pid)
        }
    }
}
