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
import KilnGit
import KilnStore

/// Measures Kiln's figures and prints them as one table.
///
/// Usage: `kiln-bench [--kiln path/to/kiln] [--only config|git|integration|store|server|web|mail|hosts|many-hosts|pulls|verdicts|feedback|shard-hosts|analyze|coverage|soundness|performance|archive|matrix|dependencies|benchmarks|sandbox|limits|warm|warm-drain|crowd]`. Work happens in a temporary directory that is removed
/// at the end. Every figure is a median over several runs, printed beside its target and the
/// comparison its issue names.
@main
struct Bench {
    static func main() async {
        var arguments = CommandLine.arguments.dropFirst()
        var kiln = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("kiln").path
        var only: String?
        while let argument = arguments.popFirst() {
            if argument == "--kiln", let path = arguments.popFirst() { kiln = path }
            if argument == "--only", let name = arguments.popFirst() { only = name }
        }
        func wanted(_ name: String) -> Bool { only == nil || only == name }
        let table = Table()
        do {
            let work = try Workspace()
            // KILN_BENCH_KEEP=1 leaves the scratch directory (its stores, homes and logs) to look at.
            defer { if ProcessInfo.processInfo.environment["KILN_BENCH_KEEP"] != "1" { work.remove() } }
            if wanted("config") { try await ConfigBench(kiln: kiln, work: work).run(into: table) }
            if wanted("git") { try await GitBench(work: work).run(into: table) }
            if wanted("integration") { try await IntegrationBench(kiln: kiln, work: work).run(into: table) }
            if wanted("sandbox") { try await SandboxBench(kiln: kiln, work: work).run(into: table) }
            if wanted("limits") { try await LimitsBench(kiln: kiln, work: work).run(into: table) }
            if wanted("store") { try await StoreBench(work: work).run(into: table) }
            if wanted("server") { try await ServerBench(kiln: kiln, work: work).run(into: table) }
            if wanted("web") { try await WebBench(kiln: kiln, work: work).run(into: table) }
            if wanted("mail") { try await MailBench(work: work).run(into: table) }
            if wanted("hosts") { try await HostsBench(kiln: kiln, work: work).run(into: table) }
            if wanted("many-hosts") { try await ManyHostsBench(kiln: kiln, work: work).run(into: table) }
            if wanted("many-hosts") || wanted("crowd") { try await CrowdBench(kiln: kiln, work: work).run(into: table) }
            if wanted("many-hosts") || wanted("warm-drain") { try await WarmDrainBench(kiln: kiln, work: work).run(into: table) }
            if wanted("pulls") { try await PullRequestBench(kiln: kiln, work: work).run(into: table) }
            if wanted("verdicts") { try await VerdictsBench(kiln: kiln, work: work).run(into: table) }
            if wanted("feedback") { try await FeedbackBench(kiln: kiln, work: work).run(into: table) }
            if wanted("feedback") || wanted("shard-hosts") { try await FeedbackHostsBench(kiln: kiln, work: work).run(into: table) }
            if wanted("analyze") { try await AnalyzeBench(kiln: kiln, work: work).run(into: table) }
            if wanted("coverage") { try await CoverageBench(work: work).run(into: table) }
            if wanted("soundness") { try await SoundnessBench(kiln: kiln, work: work).run(into: table) }
            if wanted("performance") { try await PerformanceBench(kiln: kiln, work: work).run(into: table) }
            if wanted("archive") { try await ArchiveBench(kiln: kiln, work: work).run(into: table) }
            if wanted("matrix") { try await MatrixBench(kiln: kiln, work: work).run(into: table) }
            if wanted("dependencies") { try await DependenciesBench(kiln: kiln, work: work).run(into: table) }
            if wanted("benchmarks") { try await BenchmarksBench(kiln: kiln, work: work).run(into: table) }
            if wanted("warm") { try await WarmBench(kiln: kiln, work: work).run(into: table) }
        } catch {
            table.print()
            FileHandle.standardError.write(Data("kiln-bench: error: \(error)\n".utf8))
            exit(1)
        }
        table.print()
    }
}

/// The benchmark's scratch directory.
struct Workspace {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-bench-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func url(_ relative: String) -> String { path + "/" + relative }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// A package named `name` in a git repository at `relative` (one commit on `main`): library
    /// `Lib` with `add(_:_:)` and the XCTest target `LibTests` holding `tests` (a file's text).
    func libraryPackage(_ relative: String, name: String, tests: String) throws -> String {
        let repository = url(relative)
        try FileManager.default.createDirectory(atPath: repository + "/Sources/Lib", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repository + "/Tests/LibTests", withIntermediateDirectories: true)
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "\(name)", targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])])

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        try "public func add(_ a: Int, _ b: Int) -> Int { a + b }\n".write(
            toFile: repository + "/Sources/Lib/Lib.swift", atomically: false, encoding: .utf8)
        try tests.write(toFile: repository + "/Tests/LibTests/LibTests.swift", atomically: false, encoding: .utf8)
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        let git = "/usr/bin/git"
        try command(git, ["init", "-q", "-b", "main"], in: repository)
        try command(git, ["add", "-A"], in: repository)
        try command(git, ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "package"], in: repository)
        return repository
    }
}

/// The rows printed at the end.
final class Table {
    struct Row {
        var figure: String
        var target: String
        var measured: String
        var comparison: String
    }

    private(set) var rows: [Row] = []

    func add(_ figure: String, target: String, measured: String, comparison: String = "") {
        rows.append(Row(figure: figure, target: target, measured: measured, comparison: comparison))
        FileHandle.standardError.write(Data("measured: \(figure): \(measured)\n".utf8))
    }

    func print() {
        let header = Row(figure: "figure", target: "target", measured: "measured", comparison: "comparison")
        let all = [header] + rows
        let columns: [(Row) -> String] = [\.figure, \.target, \.measured, \.comparison]
        let widths: [Int] = columns.map { cell in all.map { cell($0).count }.max() ?? 0 }
        func line(_ row: Row) -> String {
            var cells: [String] = []
            for (cell, width) in zip(columns, widths) { cells.append(cell(row).padding(toLength: width, withPad: " ", startingAt: 0)) }
            return "| " + cells.joined(separator: " | ") + " |"
        }
        Swift.print(line(header))
        Swift.print("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
        for row in rows { Swift.print(line(row)) }
    }
}

/// Timing helpers.
enum Measure {
    /// The median of `runs` timings of `body`, in milliseconds.
    static func median(runs: Int, prepare: () throws -> Void = {}, _ body: () async throws -> Void) async rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<runs {
            try prepare()
            let start = ContinuousClock.now
            try await body()
            samples.append(milliseconds(ContinuousClock.now - start))
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    /// When a trigger script wrote `date +%s%N` to `path` (seconds since 1970), waiting for it.
    static func markTime(_ path: String) async throws -> Double {
        let deadline = Date().addingTimeInterval(30)
        // The shell makes the file before `date` writes it: read until it holds a time (a 20 ms
        // wait once read it empty on a loaded machine, and failed the run).
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
                let nanoseconds = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return nanoseconds / 1e9
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        throw BenchError.unexpected("the integration that writes \(path) did not start")
    }

    /// Runs `arguments` in `directory` (this one when nil) and waits for it: its wall time in
    /// milliseconds, failing on a status other than 0 unless `anyStatus`. Spawned and waited for
    /// directly: Foundation's `Process` adds up to 50 ms a command here, more than some figures
    /// measure.
    static func spawn(
        _ arguments: [String], in directory: String? = nil, environment: [String: String]? = nil, anyStatus: Bool = false
    ) throws -> Double {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for pointer in envp ?? [] { free(pointer) } }
        // the child starts in this process's directory (Glibc's chdir file action is not imported)
        let here = FileManager.default.currentDirectoryPath
        if let directory, !FileManager.default.changeCurrentDirectoryPath(directory) {
            throw BenchError.unexpected("cannot change to \(directory)")
        }
        let start = ContinuousClock.now
        var pid: pid_t = 0
        let spawned =
            envp.map { posix_spawn(&pid, arguments[0], &actions, nil, argv, $0) } ?? posix_spawn(&pid, arguments[0], &actions, nil, argv, environ)
        if directory != nil { _ = FileManager.default.changeCurrentDirectoryPath(here) }
        guard spawned == 0 else { throw BenchError.unexpected("cannot start \(arguments[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let elapsed = milliseconds(ContinuousClock.now - start)
        guard status == 0 || anyStatus else { throw BenchError.unexpected("\(arguments.joined(separator: " ")) failed (status \(status))") }
        return elapsed
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func format(_ milliseconds: Double) -> String {
        milliseconds >= 1000 ? String(format: "%.2f s", milliseconds / 1000) : String(format: "%.1f ms", milliseconds)
    }
}

/// Runs a command to completion, failing on a non-zero exit with the end of what it said.
/// Runs `executable` to its end and returns the milliseconds from its start to the first line
/// of its standard output that begins with `answer` (its whole time when none does). Its status
/// is not checked: a failed integration answers too.
func timeToAnswer(
    _ executable: String, _ arguments: [String], in directory: String, environment: [String: String], answer: String = "result: "
) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let start = ContinuousClock.now
    try process.run()
    var seen = Data()
    var answered: Duration?
    while case let chunk = output.fileHandleForReading.availableData, !chunk.isEmpty {
        seen.append(chunk)
        if answered == nil, String(decoding: seen, as: UTF8.self).split(separator: "\n").contains(where: { $0.hasPrefix(answer) }) {
            answered = ContinuousClock.now - start
        }
    }
    process.waitUntilExit()
    return Measure.milliseconds(answered ?? (ContinuousClock.now - start))
}

@discardableResult
func command(
    _ executable: String, _ arguments: [String], in directory: String? = nil, input: Data? = nil, environment: [String: String]? = nil
) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let output = Pipe()
    process.standardOutput = output
    // Standard error goes to a file, so a command that says much there cannot block on a pipe
    // no one reads while its standard output is read.
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-bench-stderr-\(UUID().uuidString)").path
    guard FileManager.default.createFile(atPath: errors, contents: nil), let errorFile = FileHandle(forWritingAtPath: errors) else {
        throw BenchError.unexpected("cannot create \(errors) for a command's standard error")
    }
    defer { try? FileManager.default.removeItem(atPath: errors) }
    process.standardError = errorFile
    let inputPipe = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
    try process.run()
    try? errorFile.close()
    if let input {
        inputPipe.fileHandleForWriting.write(input)
        try inputPipe.fileHandleForWriting.close()
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        let said = (FileManager.default.contents(atPath: errors) ?? Data()) + data
        let tail = String(decoding: said.suffix(2000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let line = ([executable] + arguments).joined(separator: " ")
        throw BenchError.commandFailed("\(line) (exit \(process.terminationStatus))\(tail.isEmpty ? "" : ":\n" + tail)")
    }
    return String(decoding: data, as: UTF8.self)
}

enum BenchError: Error, CustomStringConvertible {
    case commandFailed(String)
    case unexpected(String)

    var description: String {
        switch self {
        case .commandFailed(let command): "command failed: \(command)"
        case .unexpected(let what): what
        }
    }
}
