import Foundation

/// A `kiln serve` child process, for end-to-end tests.
public final class ServerProcess: @unchecked Sendable {
    // `process` and the pipes are only touched from the test's task; the reader thread only appends
    // to `output` under `lock`.
    private let process = Process()
    private let outputPipe = Pipe()
    private let errorPipe = Pipe()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()

    /// Starts `executable` with `arguments` in `directory`, with this process's environment and `environment` on top.
    public init(executable: String = Executables.kiln, arguments: [String], in directory: String, environment: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        outputPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.withLock { self.output.append(data) }
        }
        errorPipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.withLock { self.errors.append(data) }
        }
        try process.run()
    }

    public var standardOutput: String { lock.withLock { String(decoding: output, as: UTF8.self) } }

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

    /// How long a process may take to start and say so. Only a hang should reach it: when the
    /// whole suite starts at once on two cores, a process can take half a minute to print its
    /// first line.
    public static let startTimeout = Duration.seconds(90)

    /// Polls the output until `found` returns a value. The output is looked at once more after
    /// the deadline, so a line printed while the poller slept is never reported as missing.
    private func waitFor<Found>(timeout: Duration, _ found: (String) -> Found?) async throws -> Found {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = found(standardOutput) { return value }
            guard process.isRunning else {
                if let value = found(standardOutput) { return value }
                throw ServerProcessError.exited(standardOutput)
            }
            guard ContinuousClock.now < deadline else { throw ServerProcessError.timedOut(standardOutput) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The server's resident memory in MB (VmRSS of /proc/PID/status).
    public var residentMegabytes: Double { memoryMegabytes("VmRSS") }

    /// The server's private memory in MB (RssAnon): its heap and stacks, without the pages of
    /// code it shares with the files it was loaded from.
    public var privateMegabytes: Double { memoryMegabytes("RssAnon") }

    private func memoryMegabytes(_ field: String) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }

    /// SIGKILL, as a crash or an out-of-memory kill would end it, and waits for it to be gone.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Sends SIGTERM and waits for the process to exit.
    public func terminate() async throws -> ProcessOutput {
        process.terminate()
        let deadline = ContinuousClock.now + .seconds(15)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            throw ServerProcessError.timedOut(standardOutput)
        }
        outputPipe.fileHandleForReading.readabilityHandler = nil
        errorPipe.fileHandleForReading.readabilityHandler = nil
        let rest = outputPipe.fileHandleForReading.readDataToEndOfFile()
        let restErrors = errorPipe.fileHandleForReading.readDataToEndOfFile()
        let standardError = lock.withLock {
            output.append(rest)
            errors.append(restErrors)
            return String(decoding: errors, as: UTF8.self)
        }
        return ProcessOutput(status: process.terminationStatus, standardOutput: standardOutput, standardError: standardError)
    }

    deinit {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
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
