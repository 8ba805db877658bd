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
    public func waitForPort(timeout: Duration = .seconds(30)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let range = standardOutput.range(of: #"on http://[^:\s]+:(\d+)"#, options: .regularExpression) {
                let match = standardOutput[range]
                if let colon = match.lastIndex(of: ":"), let port = Int(match[match.index(after: colon)...]) { return port }
            }
            guard process.isRunning else { throw ServerProcessError.exited(standardOutput) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ServerProcessError.timedOut(standardOutput)
    }

    /// Waits until the process has printed `text`.
    public func waitForOutput(_ text: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if standardOutput.contains(text) { return }
            guard process.isRunning else { throw ServerProcessError.exited(standardOutput) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ServerProcessError.timedOut(standardOutput)
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
