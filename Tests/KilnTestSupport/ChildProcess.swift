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

/// A process a test started: its output collected as it comes, its end awaited within a deadline.
///
/// Every wait here is bounded. A test that waited for a child without one (Foundation's
/// `waitUntilExit`, `readDataToEndOfFile`) stalled the whole suite until CI gave up when the child
/// never ended, or when something else held its pipes; now the test fails saying which command
/// did not end and what it printed.
public final class ChildProcess: Sendable {
    private struct Collected {
        var output = Data()
        var errors = Data()
        var outputOpen = true
        var errorsOpen = true
    }

    /// What the pipes' readers have collected, shared with them.
    private final class Collector: Sendable {
        let state = Mutex(Collected())
        func withLock<T>(_ body: (inout Collected) -> T) -> T { state.withLock { body(&$0) } }
    }

    private let process = Process()
    private let collected = Collector()
    /// The command line, for errors.
    public let command: String

    /// Starts `executable` with `arguments` in `directory`. `environment` replaces the test
    /// process's environment when given; `extraEnvironment` is laid over whichever applies.
    public init(
        _ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil,
        extraEnvironment: [String: String] = [:]
    ) throws {
        command = ([executable] + arguments).joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if environment != nil || !extraEnvironment.isEmpty {
            process.environment = (environment ?? ProcessInfo.processInfo.environment).merging(extraEnvironment) { _, new in new }
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read as it comes, on threads of their own, so a chatty child never blocks on a full
        // pipe. (Not `readabilityHandler`: a FileHandle that closes its descriptor while its
        // dispatch source is still armed crashes libdispatch's event loop.)
        Self.drain(output.fileHandleForReading, into: collected) { state, data in
            if let data { state.output.append(data) } else { state.outputOpen = false }
        }
        Self.drain(errors.fileHandleForReading, into: collected) { state, data in
            if let data { state.errors.append(data) } else { state.errorsOpen = false }
        }
    }

    /// Reads `handle` to its end on a thread of its own, handing each piece to `add` (and nil at the end).
    private static func drain(_ handle: FileHandle, into collector: Collector, _ add: @escaping @Sendable (inout Collected, Data?) -> Void) {
        Thread.detachNewThread {
            // The handle owns the descriptor: it stays open while this thread reads it.
            let descriptor = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                collector.withLock { add(&$0, Data(buffer[0..<count])) }
            }
            withExtendedLifetime(handle) { collector.withLock { add(&$0, nil) } }
        }
    }

    public var processIdentifier: Int32 { process.processIdentifier }
    public var isRunning: Bool { exitStatus == nil }
    /// Whether Foundation has reaped it: no zombie is left that `sendSignal(0, to: pid)` would still find.
    public var isReaped: Bool { !process.isRunning }
    public var standardOutput: String { collected.withLock { String(decoding: $0.output, as: UTF8.self) } }
    public var standardError: String { collected.withLock { String(decoding: $0.errors, as: UTF8.self) } }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        if process.isRunning { sendSignal(signal, to: process.processIdentifier) }
    }

    /// SIGKILL to the child's process group (Foundation starts every child in a group of its own),
    /// so that what it started goes too.
    public func killGroup() {
        if process.isRunning { sendSignal(SIGKILL, to: -process.processIdentifier) }
    }

    /// The exit status (or the signal that ended it, as Foundation reports it), once it has ended.
    ///
    /// Foundation learns of a child's end on one thread for all children, which waits there for
    /// any child that closed its end of Foundation's socket before exiting: meanwhile no other
    /// child is seen to end. So this also asks the kernel itself, without reaping the child
    /// (`WNOWAIT` leaves that to Foundation).
    private var exitStatus: Int32? {
        if !process.isRunning { return process.terminationStatus }
        var info = siginfo_t()
        guard waitid(P_PID, id_t(process.processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
            info._sifields._sigchld.si_pid == process.processIdentifier
        else { return nil }
        return info._sifields._sigchld.si_status
    }

    /// What it left, once it has ended and its pipes are closed (or a moment after it ended, when
    /// something it started still holds them).
    private func ended(_ endedAt: inout ContinuousClock.Instant?) -> ProcessOutput? {
        guard let status = exitStatus else { return nil }
        let now = ContinuousClock.now
        let start = endedAt ?? now
        endedAt = start
        let open = collected.withLock { $0.outputOpen || $0.errorsOpen }
        guard !open || now - start > .seconds(2) else { return nil }
        return collected.withLock {
            ProcessOutput(
                status: status, standardOutput: String(decoding: $0.output, as: UTF8.self),
                standardError: String(decoding: $0.errors, as: UTF8.self))
        }
    }

    /// Waits until the child has ended; after `timeout`, kills its group and throws.
    public func finish(within timeout: Duration) async throws -> ProcessOutput {
        let deadline = ContinuousClock.now + timeout
        var endedAt: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            if let output = ended(&endedAt) { return output }
            try await Task.sleep(for: .milliseconds(10))
        }
        if let output = ended(&endedAt) { return output }
        throw timedOut(timeout)
    }

    /// `finish(within:)` for synchronous set-up code that cannot await: blocks the calling thread.
    public func finishBlocking(within timeout: Duration) throws -> ProcessOutput {
        let deadline = ContinuousClock.now + timeout
        var endedAt: ContinuousClock.Instant?
        while ContinuousClock.now < deadline {
            if let output = ended(&endedAt) { return output }
            usleep(5_000)
        }
        if let output = ended(&endedAt) { return output }
        throw timedOut(timeout)
    }

    private func timedOut(_ timeout: Duration) -> ChildProcessError {
        // A zombie has ended; only its parent (this process, through Foundation) has not noticed.
        let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
        let zombie = stat.lastIndex(of: ")").map { stat[stat.index(after: $0)...].hasPrefix(" Z") } ?? false
        killGroup()
        return .timedOut(command: command, after: timeout, stillRunning: !zombie, output: standardOutput + standardError)
    }

    deinit {
        if process.isRunning { sendSignal(SIGKILL, to: -process.processIdentifier) }
    }
}

public enum ChildProcessError: Error, CustomStringConvertible {
    case timedOut(command: String, after: Duration, stillRunning: Bool, output: String)

    public var description: String {
        switch self {
        case .timedOut(let command, let after, let stillRunning, let output):
            let what =
                stillRunning
                ? "did not end within \(after); it was stopped"
                : "ended, but Foundation did not report its end within \(after)"
            return "\(command) \(what). Its output:\n\(output.suffix(4000))"
        }
    }
}

extension Process {
    /// SIGKILL, then waits a few seconds at most for the end to be noticed: never
    /// `waitUntilExit`, which waits without a bound.
    public func killAndWait() {
        guard isRunning else { return }
        sendSignal(SIGKILL, to: processIdentifier)
        let deadline = ContinuousClock.now + .seconds(15)
        while isRunning, ContinuousClock.now < deadline { usleep(5_000) }
    }
}
