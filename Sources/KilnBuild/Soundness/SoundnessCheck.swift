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

/// One check of the `analyze` step that reads the repository (not the build): the checks of the
/// Swift project's shared soundness workflow (swiftlang/github-workflows), with the package's own
/// configuration files. Each finding is a located analyzer warning; a check that cannot run
/// says why in `AnalysisOutput.failure`, never passing in silence.
protocol SoundnessCheck: Sendable {
    func run(_ context: SoundnessContext) async throws(ProcessError) -> AnalysisOutput
}

/// What a check is given: the workspace (its processes run there, under the bot's sandbox and
/// network), the bot's settings, and the repository's tracked files, listed once per integration.
struct SoundnessContext: Sendable {
    let package: PackageBuild
    let commit: String?
    let settings: AnalyzeSettings
    let tracked: TrackedFiles

    var workspace: Workspace { package.workspace }

    /// Runs a command in the workspace, in the `analyzing` step, its lines to `onLine`. `logged:
    /// false` keeps its output (a file list, a package's description) out of the log.
    func run(_ command: StepCommand, logged: Bool = true, onLine: @escaping @Sendable (Substring) -> Void = { _ in }) async throws(ProcessError)
        -> ProcessEnd
    {
        try await workspace.run(command, step: .analyzing, commit: commit, logged: logged, onLine: onLine)
    }

    /// Runs a command and returns its output's lines, unlogged.
    func lines(_ command: StepCommand) async throws(ProcessError) -> (end: ProcessEnd, lines: [String]) {
        let collected = Mutex<[String]>([])
        let end = try await run(command, logged: false) { line in collected.withLock { $0.append(String(line)) } }
        return (end, collected.withLock { $0 })
    }

    /// Whether `tool` is on the PATH the checks' processes get; a check says which package to
    /// install when it is not.
    func has(_ tool: String) -> Bool {
        let path = workspace.environment(commit: commit, forTrigger: false)["PATH"] ?? ""
        return path.split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }

    /// A file of the repository's configuration (`.license_header_template`, `.spi.yml`), or nil
    /// when it has none. A symbolic link or anything but a regular file is not read: a pull
    /// request's files must not make Kiln read the host's.
    func configuration(_ name: String) -> String? {
        WorkspaceFile.read(name, in: workspace.directory)
    }

    /// A finding of `check`, its path relative to the repository.
    func finding(_ check: AnalyzerCheck, file: String?, line: Int?, column: Int? = nil, _ message: String) -> Diagnostic {
        Diagnostic(severity: .warning, file: file, line: line, column: column, message: message, check: check)
    }

    /// The tracked files `pathspecs` select (`git ls-files -- PATHSPEC…`), and a failure saying
    /// why when git could not list them.
    func list(_ pathspecs: [String]) async throws(ProcessError) -> (files: [String], failure: String?) {
        let listed = try await lines(StepCommand("git", ["-c", "core.quotePath=false", "ls-files", "--"] + pathspecs))
        guard listed.end.succeeded else { return ([], "git ls-files \(listed.end.description): \(listed.lines.last ?? "")") }
        return (listed.lines.map(TrackedFiles.unquoted), nil)
    }

    /// Runs `tool` on `files` (a thousand at a time), each output line through `parse`; a run
    /// that ends other than by `exit 0` or by `findingsExit` with findings is a failure.
    func lint(
        _ check: AnalyzerCheck, tool: String, _ arguments: [String], files: [String], findingsExit: Set<Int32> = [1],
        parse: @escaping @Sendable (Substring) -> Diagnostic?
    ) async throws(ProcessError) -> AnalysisOutput {
        let what = check.rawValue
        guard has(tool) else {
            return AnalysisOutput(
                findings: [], failure: "\(what) not checked: \(tool) is not installed on this host (apt-get install \(tool))", end: .exited(0))
        }
        var findings: [Diagnostic] = []
        var failure: String?
        var end = ProcessEnd.exited(0)
        for start in stride(from: 0, to: files.count, by: 1000) {
            let found = Mutex<[Diagnostic]>([])
            let last = Mutex("")
            let chunk = Array(files[start..<min(start + 1000, files.count)])
            end = try await run(StepCommand(tool, arguments + ["--"] + chunk)) { line in
                if let finding = parse(line) { found.withLock { $0.append(finding) } } else if !line.isEmpty { last.withLock { $0 = String(line) } }
            }
            let these = found.withLock { $0 }
            findings += these
            switch end {
            case .exited(0): continue
            case .exited(let code) where findingsExit.contains(code) && !these.isEmpty: continue
            case .timedOut, .canceled: break  // the step says so; the next chunk would not run either
            default:
                let said = last.withLock { $0 }
                failure = "\(what) not checked: \(tool) \(end.description)\(said.isEmpty ? "" : ": \(said)")"
            }
            break
        }
        return AnalysisOutput(findings: findings, failure: failure, end: end)
    }
}

/// The repository's tracked files, from the index (`git ls-files -s`): path and mode.
struct TrackedFiles: Sendable {
    var entries: [(path: String, mode: String)]

    var paths: [String] { entries.map(\.path) }

    /// The tracked paths ending with one of `suffixes`, as git's pathspec `*.sh` finds them.
    func ending(with suffixes: [String]) -> [String] {
        paths.filter { path in suffixes.contains { path.hasSuffix($0) } }
    }

    /// Reads `git ls-files -s` lines (`MODE SHA STAGE<TAB>PATH`).
    init(lsFiles lines: [String]) {
        entries = lines.compactMap { record in
            guard let tab = record.firstIndex(of: "\t") else { return nil }
            return (Self.unquoted(String(record[record.index(after: tab)...])), String(record.prefix { $0 != " " }))
        }
    }

    /// A path as git prints it: in double quotes with C escapes when it holds a quote, a
    /// backslash or a control character (even with `core.quotePath=false`).
    static func unquoted(_ path: String) -> String {
        guard path.count >= 2, path.hasPrefix("\""), path.hasSuffix("\"") else { return path }
        var bytes: [UInt8] = []
        var input = Array(path.utf8.dropFirst().dropLast())[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = input.popFirst() else {
                bytes.append(byte)
                continue
            }
            switch next {
            case UInt8(ascii: "n"): bytes.append(10)
            case UInt8(ascii: "t"): bytes.append(9)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = Int(next - UInt8(ascii: "0"))
                for _ in 0..<2 {
                    guard let digit = input.first, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(digit) else { break }
                    value = value * 8 + Int(digit - UInt8(ascii: "0"))
                    input.removeFirst()
                }
                bytes.append(UInt8(truncatingIfNeeded: value))
            default: bytes.append(next)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Reads a repository's own files without following a link out of it.
enum WorkspaceFile {
    /// The file at `path` in `directory`, up to `limit` bytes, when it is a regular file (not a
    /// link, a directory or a device).
    static func read(_ path: String, in directory: String, limit: Int = 1 << 20) -> String? {
        guard let data = bytes(path, in: directory, limit: limit) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func bytes(_ path: String, in directory: String, limit: Int) -> Data? {
        let full = directory + "/" + path
        var status = stat()
        guard lstat(full, &status) == 0, status.st_mode & S_IFMT == S_IFREG, let handle = FileHandle(forReadingAtPath: full) else {
            return nil
        }
        // closing a file that was only read loses nothing
        defer { try? handle.close() }
        return (try? handle.read(upToCount: limit)) ?? Data()
    }
}
