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

/// A `kiln serve` child process (or another long-running one), for end-to-end tests.
public final class ServerProcess: Sendable {
    private let child: ChildProcess

    /// Starts `executable` with `arguments` in `directory`, with this process's environment and `environment` on top.
    public init(executable: String = Executables.kiln, arguments: [String], in directory: String, environment: [String: String] = [:]) throws {
        child = try ChildProcess(executable, arguments, in: directory, extraEnvironment: environment)
    }

    public var standardOutput: String { child.standardOutput }

    /// Sends `signal` to the server, and returns at once.
    public func signal(_ signal: Int32) {
        child.send(signal)
    }

    /// Waits for the "serving … on http://host:port" line and returns the port.
    public func waitForPort(timeout: Duration = ServerProcess.startTimeout) async throws -> Int {
        try await waitFor(timeout: timeout) { output in
            guard let range = output.range(of: #"on http://[^:\s]+:(\d+)"#, options: .regularExpression) else { return nil }
            let match = output[range]
            guard let colon = match.lastIndex(of: ":") else { return nil }
            return Int(match[match.index(after: colon)...])
        }
    }

    /// Waits until the process has printed `text`.
    public func waitForOutput(_ text: String, timeout: Duration = ServerProcess.startTimeout) async throws {
        try await waitFor(timeout: timeout) { $0.contains(text) ? () : nil }
    }

    /// How long a process may take to start and say so. Only a stall should reach it: when the
    /// whole suite starts at once on two cores, a process can take half a minute to print its
    /// first line.
    public static let startTimeout = Duration.seconds(90)

    /// Polls the output until `found` returns a value. The output is looked at once more after
    /// the deadline, so a line printed while the poller slept is never reported as missing.
    private func waitFor<Found>(timeout: Duration, _ found: (String) -> Found?) async throws -> Found {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = found(standardOutput) { return value }
            guard child.isRunning else {
                if let value = found(standardOutput) { return value }
                throw ServerProcessError.exited(standardOutput)
            }
            guard ContinuousClock.now < deadline else { throw ServerProcessError.timedOut(standardOutput) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// What the server has logged so far (its standard error).
    public var standardError: String { child.standardError }

    /// The server's process ID.
    public var processIdentifier: Int32 { child.processIdentifier }

    /// The server's resident memory in MB (VmRSS of /proc/PID/status).
    public var residentMegabytes: Double { memoryMegabytes("VmRSS") }

    /// The server's private memory in MB (RssAnon): its heap and stacks, without the pages of
    /// code it shares with the files it was loaded from.
    public var privateMegabytes: Double { memoryMegabytes("RssAnon") }

    private func memoryMegabytes(_ field: String) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(child.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }

    /// SIGKILL, as a crash or an out-of-memory stop would end it, and waits (15 s at most) for it
    /// to be gone: reaped, not a zombie that a liveness check (`sendSignal(0, to: pid)`) would still find.
    public func sigkill() {
        child.send(SIGKILL)
        let deadline = ContinuousClock.now + .seconds(15)
        while !child.isReaped, ContinuousClock.now < deadline { usleep(5_000) }
    }

    /// Sends SIGTERM and waits for the process to exit; kills it and throws after 40 s. A
    /// graceful shutdown lets the store's transactions in flight end (a write asked for lands),
    /// and one on a link to PostgreSQL that died (a host cut off, a database frozen) ends only at
    /// its time limit, 15 s for a lease: a 15 s wait here failed such tests now and then.
    public func terminate() async throws -> ProcessOutput {
        child.send(SIGTERM)
        let deadline = ContinuousClock.now + .seconds(40)
        while child.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        // Still running: where its threads wait says where its shutdown stands (a stall on a
        // lane's thread, a lock), besides what it logged.
        let threads = child.isRunning ? Self.threadStacks(of: child.processIdentifier) : ""
        do {
            return try await child.finish(within: .seconds(5))
        } catch {
            throw ServerProcessError.timedOut(standardOutput + "\n--- its log (standard error) ---\n" + child.standardError + threads)
        }
    }

    /// Every thread's innermost frames, as gdb reads them from the running process (empty
    /// without gdb: the Debian package `gdb`).
    private static func threadStacks(of pid: Int32) -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb"),
            let dump = try? runProcessSync("/usr/bin/gdb", ["-p", "\(pid)", "-batch", "-ex", "thread apply all bt 12"], timeout: .seconds(60))
        else { return "" }
        // A frame's function, without its arguments and addresses.
        let frames = dump.standardOutput.split(separator: "\n").compactMap { line -> String? in
            if line.hasPrefix("Thread ") { return String(line) }
            guard line.hasPrefix("#") else { return nil }
            let function = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first { $0 != "in" && !$0.hasPrefix("0x") }
            return "  " + (function.map(String.init) ?? String(line))
        }
        return "\n--- its threads (gdb) ---\n" + frames.joined(separator: "\n")
    }
}

public enum ServerProcessError: Error, CustomStringConvertible {
    case exited(String)
    case timedOut(String)

    public var description: String {
        switch self {
        case .exited(let output): "kiln serve exited early:\n\(output)"
        case .timedOut(let output): "kiln serve did not answer in time:\n\(output)"
        }
    }
}
