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

/// Starts the test servers in `Tests/Servers/` (Python scripts that write their port to
/// `DIR/port` once they listen and run until their standard input closes).
enum PythonServer {
    static let python = "/usr/bin/python3"

    /// Runs `script` with `arguments` (which name `directory` as the script expects), in
    /// `namespace` when given, and waits without blocking a thread until it listens.
    static func launch(
        _ script: String, arguments: [String], directory: TemporaryDirectory, namespace: String?, what: String
    ) async throws -> (process: Process, input: Pipe, port: Int) {
        let process = Process()
        let arguments = [Executables.packageRoot + "/Tests/Servers/" + script] + arguments
        if let namespace {
            process.executableURL = URL(fileURLWithPath: NetworkLab.ip)
            process.arguments = ["netns", "exec", namespace, python] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = arguments
        }
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: directory.url("stderr"), contents: nil)
        process.standardError = FileHandle(forWritingAtPath: directory.url("stderr"))
        let input = Pipe()
        process.standardInput = input
        try? FileManager.default.removeItem(atPath: directory.url("port"))
        try process.run()
        // Checked once more after the deadline: on a busy machine this task may wake only after it.
        let deadline = ContinuousClock.now + .seconds(60)
        var last = false
        while !last {
            last = ContinuousClock.now >= deadline
            if let text = try? String(contentsOfFile: directory.url("port"), encoding: .utf8), let port = Int(text) {
                return (process, input, port)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let running = process.isRunning
        sendSignal(SIGKILL, to: process.processIdentifier)
        let stderr = (try? String(contentsOfFile: directory.url("stderr"), encoding: .utf8)) ?? ""
        throw SMTPServerError.missing(
            "\(what) (Tests/Servers/\(script)) did not start (\(running ? "still starting after 60 s" : "it exited")): \(stderr)")
    }
}
