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

/// Git's smart HTTP over TLS on 127.0.0.1 (`git http-backend` behind
/// `Tests/Servers/git_https_server.py`), with its own self-signed certificate and, optionally,
/// basic authentication: a real https remote for tests.
public final class GitHTTPSServer: @unchecked Sendable {
    // Only touched by the test that owns it.
    private let process: Process
    public let port: Int
    public let directory: TemporaryDirectory
    /// The server's certificate (its own CA): trust it with a bot's `ca-file`.
    public let certificate: String

    /// Serves `repositories` (name → path of a bare repository) as `https://127.0.0.1:PORT/<name>.git`.
    public static func start(repositories: [String: String], auth: String? = nil) async throws -> GitHTTPSServer {
        let directory = try TemporaryDirectory("kiln-https")
        try FileManager.default.createDirectory(atPath: directory.url("root"), withIntermediateDirectories: true)
        for (name, path) in repositories {
            try FileManager.default.createSymbolicLink(atPath: directory.url("root/\(name).git"), withDestinationPath: path)
        }
        let tls = try SMTPServer.certificate(in: directory)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SMTPServer.python)
        process.arguments =
            [
                Executables.packageRoot + "/Tests/Servers/git_https_server.py", "--root", directory.url("root"), "--cert", tls.certificate, "--key",
                tls.key,
            ]
            + (auth.map { ["--auth", $0] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: directory.url("stderr"), contents: nil)
        process.standardError = FileHandle(forWritingAtPath: directory.url("stderr"))
        try process.run()
        // Generous: the whole suite starts at once on two cores.
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, process.isRunning {
            if let text = try? String(contentsOfFile: directory.url("port"), encoding: .utf8), let port = Int(text) {
                return GitHTTPSServer(process: process, port: port, directory: directory, certificate: tls.certificate)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        sendSignal(SIGKILL, to: process.processIdentifier)
        let said = (try? String(contentsOfFile: directory.url("stderr"), encoding: .utf8)) ?? ""
        throw GitFixtureError.failed("https server", "Tests/Servers/git_https_server.py did not start: \(said.suffix(500))")
    }

    private init(process: Process, port: Int, directory: TemporaryDirectory, certificate: String) {
        self.process = process
        self.port = port
        self.directory = directory
        self.certificate = certificate
    }

    /// The https URL of repository `name`, with `credentials` (`user:password`) when given. The
    /// host is `localhost` (the certificate's DNS name): mbedTLS matches names, not IP addresses.
    public func url(_ name: String, credentials: String? = nil) -> String {
        "https://\(credentials.map { $0 + "@" } ?? "")localhost:\(port)/\(name).git"
    }

    deinit {
        process.killAndWait()
    }
}
