import Foundation
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// A command an integration runs: a build, a test run, a trigger script.
public struct StepCommand: Sendable, Hashable {
    public var executable: String
    public var arguments: [String]

    public init(_ executable: String, _ arguments: [String] = []) {
        self.executable = executable
        self.arguments = arguments
    }

    /// A shell command, run with `/bin/sh -c`.
    public static func shell(_ script: String) -> StepCommand { StepCommand("/bin/sh", ["-c", script]) }

    /// The command as a log header shows it.
    public var display: String {
        if executable == "/bin/sh", arguments.count == 2, arguments[0] == "-c" { return arguments[1] }
        return ([executable] + arguments).map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " ")
    }
}

/// How a step's process ended.
public enum ProcessEnd: Sendable, Hashable {
    case exited(Int32)
    case signaled(Int32)
    /// The deadline passed; the process group was killed.
    case timedOut
    /// The integration was canceled; the process group was killed.
    case canceled

    public var succeeded: Bool { self == .exited(0) }
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
/// merged into standard output) goes to the log as it arrives and, line by line, to `onLine`. At
/// the deadline or on task cancellation the whole group is killed; when the process ends, any
/// child it left behind in its group is killed too, so nothing outlives the step.
public enum ProcessRunner {
    public static func run(
        _ command: StepCommand,
        in directory: String,
        environment: [String: String],
        log: IntegrationLog,
        deadline: ContinuousClock.Instant,
        onLine: @escaping @Sendable (Substring) -> Void = { _ in }
    ) async throws(ProcessError) -> ProcessEnd {
        var options = PlatformOptions()
        options.processGroupID = 0
        // swift-subprocess hands these rows to strdup(): each must end with a NUL byte.
        let variables = environment.map { Array("\($0.key)=\($0.value)".utf8) + [0] }
        let executable: Executable = command.executable.contains("/") ? .path(FilePath(command.executable)) : .name(command.executable)
        let outcome: ExecutionResult<ProcessEnd?, SequenceOutput, CombinedErrorOutput>
        do {
            outcome = try await Subprocess.run(
                executable, arguments: Arguments(command.arguments), environment: .custom(variables), workingDirectory: FilePath(directory),
                platformOptions: options, input: .none, output: .sequence, error: .combinedWithOutput
            ) { execution in
                let group = execution.processIdentifier.value
                return await withTaskCancellationHandler {
                    await watch(execution, group: group, log: log, deadline: deadline, onLine: onLine)
                } onCancel: {
                    killGroup(group)
                }
            }
        } catch {
            throw .cannotStart(command: command.display, reason: "\(error)")
        }
        if let forced = outcome.closureResult { return forced }
        switch outcome.terminationStatus {
        case .exited(let code): return .exited(code)
        case .signaled(let signal): return .signaled(signal)
        }
    }

    /// Streams the output until the process closes it, racing the deadline; returns why the group
    /// was killed, or nil when the process ended by itself.
    private static func watch(
        _ execution: Execution<NoInput, SequenceOutput, CombinedErrorOutput>, group: pid_t, log: IntegrationLog,
        deadline: ContinuousClock.Instant, onLine: @escaping @Sendable (Substring) -> Void
    ) async -> ProcessEnd? {
        let output = execution.standardOutput
        let forced: ProcessEnd? = await withTaskGroup(of: ProcessEnd?.self) { tasks in
            tasks.addTask {
                var pending = ""
                do {
                    for try await buffer in output {
                        let bytes = buffer.withUnsafeBytes { Array($0) }
                        await log.append(bytes)
                        pending += String(decoding: bytes, as: UTF8.self)
                        while let newline = pending.firstIndex(of: "\n") {
                            onLine(pending[..<newline])
                            pending = String(pending[pending.index(after: newline)...])
                        }
                        if pending.utf8.count > 256 * 1024 { pending = "" }
                    }
                } catch {
                    await log.note("reading the output failed: \(error)")
                }
                if !pending.isEmpty { onLine(Substring(pending)) }
                await log.flushPartial()
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
            let first = await tasks.next() ?? nil
            if first != nil { killGroup(group) }
            tasks.cancelAll()
            // After a kill, wait for the reader to drain what the group wrote before it died.
            while let next = await tasks.next() { _ = next }
            return first
        }
        // Anything the step left running in its group goes with it.
        killGroup(group)
        if forced == nil, Task.isCancelled { return .canceled }
        return forced
    }

    static func killGroup(_ group: pid_t) {
        guard group > 0 else { return }
        kill(-group, SIGKILL)
    }
}
