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
import KilnPresentation
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// How a step's process ended.
public enum ProcessEnd: Sendable, Hashable {
    case exited(Int32)
    case signaled(Int32)
    /// The deadline passed; the process group was stopped.
    case timedOut
    /// The integration was canceled; the process group was stopped.
    case canceled
    /// Its caller had what it needed (`test.fail-fast`: a failing test); the group was stopped.
    case stopped
    /// Its processes reached one of the bot's `limits`; every one of them was stopped.
    case limitReached(LimitReached)

    public var succeeded: Bool { self == .exited(0) }
}

extension ProcessEnd: CustomStringConvertible {
    /// "exited with status 1", "was ended by signal 9", …: how a step's process ended, in a sentence.
    public var description: String {
        switch self {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "was ended by signal \(signal)"
        case .timedOut: "timed out"
        case .canceled: "was canceled"
        case .stopped: "was stopped at the first failure (test.fail-fast)"
        case .limitReached(let reached): "\(LimitText.used(reached)) (limits.\(reached.limit.rawValue)) and was stopped"
        }
    }
}

public enum ProcessError: Error, Sendable, CustomStringConvertible {
    case cannotStart(command: String, reason: String)

    public var description: String {
        switch self {
        case .cannotStart(let command, let reason): "cannot start \(command): \(reason)"
        }
    }
}

/// Runs one process of an integration.
///
/// The process gets its own process group, the environment it is given and nothing else of the
/// server's, no standard input, and the workspace as its directory. Its output (standard error
/// merged into standard output) goes to the log as it arrives and, line by line, to `onLine`. The
/// process leads a session of its own: at the deadline or on task cancellation every process in
/// that session is stopped, and when the process ends, anything it left behind in it is stopped too,
/// so nothing outlives the step (short of a process that starts a session of its own).
///
/// A command in a PID namespace of its own (`isolated`: bubblewrap's `--unshare-pid`) needs no
/// sweep of `/proc` for its session or mark when it ends: the namespace's first process ends with
/// the command, and the kernel then kills every process left in it. Nor does one whose processes
/// are all in a control group of its own (`group`, its limits'): every process it started is
/// in the group, whatever session it made, and the group's list of them is what is stopped. Those
/// sweeps read every process's `stat` and `environ`: 7 ms with 24 hosts' integrations on one
/// machine, and about 14 ms of a warm integration's three steps on an idle one (the group's list
/// instead: `make bench --only integration`, docs/performance.md).
public enum ProcessRunner {
    public static func run(
        _ command: StepCommand,
        in directory: String,
        environment: [String: String],
        log: IntegrationLog,
        deadline: ContinuousClock.Instant,
        mark: String? = nil,
        isolated: Bool = false,
        group controlGroup: ControlGroup? = nil,
        logged: Bool = true,
        stop: EarlyStop? = nil,
        onLine: @escaping @Sendable (Substring) -> Void = { _ in }
    ) async throws(ProcessError) -> ProcessEnd {
        var environment = environment
        if let mark { environment[Self.markVariable] = mark }
        // Whatever escaped the session (setsid, a double fork) still carries the mark, and is still
        // in the group.
        let sweep = Sweep(isolated: isolated, group: controlGroup)
        defer { if let mark, sweep.needsMark { killMarked(mark) } }
        var options = PlatformOptions()
        // A session of its own (and with it a process group): tools that put their children in
        // new process groups — `swift test` does for the test runner — stay in the session, so
        // ending the session's processes leaves nothing behind.
        options.createSession = true
        // swift-subprocess hands these rows to strdup(): each must end with a NUL byte.
        let variables = environment.map { Array("\($0.key)=\($0.value)".utf8) + [0] }
        let executable = Self.executable(command.executable, path: environment["PATH"])
        let outcome: ExecutionResult<ProcessEnd?, SequenceOutput, CombinedErrorOutput>
        do {
            outcome = try await Subprocess.run(
                executable, arguments: Arguments(command.arguments), environment: .custom(variables), workingDirectory: FilePath(directory),
                platformOptions: options, input: .none, output: .sequence, error: .combinedWithOutput
            ) { execution in
                let group = execution.processIdentifier.value
                return await withTaskCancellationHandler {
                    await watch(execution, group: group, sweep: sweep, log: log, logged: logged, deadline: deadline, stop: stop, onLine: onLine)
                } onCancel: {
                    killGroup(group, sweep: sweep)
                }
            }
        } catch {
            throw .cannotStart(command: command.display, reason: "\(error)")
        }
        // Anything the step left running in its group goes with it: only now, once the process
        // itself has ended (swift-subprocess returns after it does). Ending at the end of its
        // output instead stopped a process that had closed its output and not yet exited.
        killGroup(outcome.processIdentifier.value, sweep: sweep)
        if let forced = outcome.closureResult { return forced }
        switch outcome.terminationStatus {
        case .exited(let code): return .exited(code)
        case .signaled(let signal): return .signaled(signal)
        }
    }

    /// `name` as the process's PATH finds it. swift-subprocess would try to start each PATH
    /// candidate in turn (a fork per directory until one exists: eleven on a PATH of twelve
    /// directories with `swift` last); looking first costs a stat per directory. A name found
    /// nowhere is left to swift-subprocess, which says so.
    static func executable(_ name: String, path: String?) -> Executable {
        if name.contains("/") { return .path(FilePath(name)) }
        for directory in (path ?? "").split(separator: ":") {
            guard directory.hasPrefix("/") else { return .name(name) }  // relative to the workspace: as swift-subprocess does
            let candidate = "\(directory)/\(name)"
            var status = stat()
            if stat(candidate, &status) == 0, status.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return .path(FilePath(candidate))
            }
        }
        return .name(name)
    }

    /// Streams the output until the process closes it, racing the deadline; returns why the group
    /// was stopped, or nil when the process ended by itself.
    private static func watch(
        _ execution: Execution<NoInput, SequenceOutput, CombinedErrorOutput>, group: pid_t, sweep: Sweep, log: IntegrationLog, logged: Bool,
        deadline: ContinuousClock.Instant, stop: EarlyStop?, onLine: @escaping @Sendable (Substring) -> Void
    ) async -> ProcessEnd? {
        let output = execution.standardOutput
        // Parsers read what the log keeps: the bot's secrets masked, so that no issue or test
        // message made of the output holds one.
        let mask = log.secretMask
        let read: @Sendable (Substring) -> Void
        if mask.isEmpty {
            read = onLine
        } else {
            read = { line in onLine(Substring(mask.apply(line))) }
        }
        let forced: ProcessEnd? = await withTaskGroup(of: ProcessEnd?.self) { tasks in
            tasks.addTask {
                // Bytes after the last newline wait for the rest of their line.
                var pending: [UInt8] = []
                do {
                    for try await buffer in output {
                        let bytes = buffer.withUnsafeBytes { Array($0) }
                        if logged { await log.append(bytes) }
                        var lineStart = 0
                        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
                            if pending.isEmpty {
                                read(Substring(decoding: bytes[lineStart..<index], as: UTF8.self))
                            } else {
                                pending += bytes[lineStart..<index]
                                read(Substring(decoding: pending, as: UTF8.self))
                                pending.removeAll(keepingCapacity: true)
                            }
                            lineStart = index + 1
                        }
                        pending += bytes[lineStart...]
                        // A line longer than this is not a diagnostic or a test result: drop it.
                        if pending.count > 256 * 1024 { pending.removeAll() }
                    }
                } catch {
                    await log.note("reading the output failed: \(error)")
                }
                if !pending.isEmpty { read(Substring(decoding: pending, as: UTF8.self)) }
                if logged { await log.flushPartial() }
                return nil
            }
            tasks.addTask {
                do {
                    try await Task.sleep(until: deadline, clock: .continuous)
                } catch {
                    return Task.isCancelled ? .canceled : nil
                }
                return .timedOut
            }
            if let stop {
                tasks.addTask {
                    await stop.requested()
                    return Task.isCancelled ? nil : .stopped
                }
            }
            let first = await tasks.next() ?? nil
            if first != nil { killGroup(group, sweep: sweep) }
            tasks.cancelAll()
            // After a stop, wait for the reader to drain what the group wrote before it died, and
            // sweep again for whatever the group started while the first sweep ran.
            while let next = await tasks.next() { _ = next }
            if first != nil { killGroup(group, sweep: sweep) }
            return first
        }
        if forced == nil, Task.isCancelled { return .canceled }
        return forced
    }

    /// The variable every process of a step carries, naming its integration.
    public static let markVariable = "KILN_MARK"

    /// Kills every process of this user whose environment carries `mark` (see `markVariable`):
    /// daemons a step started in sessions of their own, or the processes of an integration whose
    /// server was stopped. Returns how many were stopped.
    @discardableResult
    public static func killMarked(_ mark: String) -> Int {
        let variable = Array("\(markVariable)=\(mark)".utf8)
        let me = getpid()
        var table = ProcTable()
        var stopped = 0
        for pid in ProcTable.pids() where pid > 1 && pid != me {
            if table.read(pid, "environ", { ProcTable.environment($0, holds: variable) }) == true {
                sendSignal(SIGKILL, to: pid)
                stopped += 1
            }
        }
        return stopped
    }

    /// How a step's leftovers are found once it ends or is stopped.
    struct Sweep: Sendable {
        /// In a PID namespace of its own: the process group is enough, the namespace goes with it.
        var isolated: Bool
        /// In a control group of its own: its members are every process the step started.
        var group: ControlGroup?

        /// Whether processes that left the session must be found by their mark in `/proc`.
        var needsMark: Bool { !isolated && group == nil }
    }

    /// Kills the step's process group, then what else is left: every process in its control
    /// group, or else every other process still in its session; an isolated one's group only
    /// (its PID namespace goes with it).
    static func killGroup(_ group: pid_t, sweep: Sweep = Sweep(isolated: false)) {
        guard group > 0 else { return }
        sendSignal(SIGKILL, to: -group)
        guard !sweep.isolated else { return }
        if let controlGroup = sweep.group {
            controlGroup.killMembers()
            return
        }
        for pid in sessionMembers(group) { sendSignal(SIGKILL, to: pid) }
    }

    /// Processes whose session is `session` (field 6 of /proc/PID/stat).
    static func sessionMembers(_ session: pid_t) -> [pid_t] {
        var table = ProcTable()
        return ProcTable.pids().filter { pid in pid > 1 && table.read(pid, "stat", ProcTable.session) == session }
    }
}
