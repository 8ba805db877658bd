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
import Synchronization

/// `swift build` and `swift test` of the package in a workspace, as the bot configures them.
public struct PackageBuild: Sendable {
    public let workspace: Workspace
    /// Where Swift Testing writes its events (and test lists go): one per workspace, or per shard.
    var testEvents: String

    public init(workspace: Workspace, layout: DataDirectory) {
        self.workspace = workspace
        self.testEvents = layout.testEvents(of: workspace.bot.name, fork: workspace.fromFork, slot: workspace.slot)
    }

    var bot: Bot { workspace.bot }
    var configuration: String { bot.build.configuration.rawValue }

    /// `swift package` with the build step's compiler flags: with others, a `swift package` that
    /// builds (a plugin's tools, the API check) and the next `swift build` each rebuilt what the
    /// other had (a warm package-benchmark integration took 18 s, 5.4 s with the same flags).
    func swiftPackage(_ subcommand: [String]) -> [String] { ["package"] + workspace.compilerFlags + subcommand }

    /// `swift build` (with the tests when the bot tests), its diagnostics read as the lines arrive.
    public var buildArguments: [String] {
        // No shared dependency cache (Kiln's mirrors are one): cells building at once under one
        // HOME read a repository from it half written ("no versions of 'dep' match").
        var arguments = ["build", "-c", configuration, "--disable-dependency-cache"]
        if bot.test.enabled { arguments.append("--build-tests") }
        if bot.test.enabled, bot.test.coverage { arguments.append("--enable-code-coverage") }
        return arguments + workspace.compilerFlags + bot.build.arguments
    }

    /// `swift test` of what the build built, with Swift Testing's events written to a file.
    public var testArguments: [String] {
        var arguments = ["test", "--skip-build", "-c", configuration, "--experimental-event-stream-output", testEvents]
        if bot.test.coverage { arguments.append("--enable-code-coverage") }
        return arguments + bot.test.arguments
    }

    /// `swift build`; `previous` are the issues of the integration this one is compared with,
    /// whose warnings `carriedWarnings` may keep.
    public func build(commit: String?, previous: [IntegrationIssue] = []) async throws(ProcessError) -> BuildOutput {
        let parser = Mutex(DiagnosticParser(root: workspace.seenAs))
        let before = serializedDiagnostics(of: Self.warnedFiles(previous))
        let end = try await workspace.run(StepCommand("swift", buildArguments), step: .building, commit: commit) { line in
            parser.withLock { $0.consume(line.utf8) }
        }
        return BuildOutput(diagnostics: parser.withLock { $0.diagnostics }, end: end, diagnosticsBefore: before)
    }

    /// `swift format lint` of the whole package (swift-format skips hidden directories such as
    /// `.build`, and finds the repository's `.swift-format` itself). Its findings are warnings
    /// and exit 0; a file it cannot parse is a located error and exit 1. Any other end, or an
    /// error without a place (no swift-format in the toolchain), means no analysis was done.
    public func lint(commit: String?) async throws(ProcessError) -> AnalysisOutput {
        let parser = Mutex(DiagnosticParser(root: workspace.seenAs))
        let command = StepCommand("swift", ["format", "lint", "--recursive", "--parallel", "."])
        let end = try await workspace.run(command, step: .analyzing, commit: commit) { line in
            parser.withLock { $0.consume(line.utf8) }
        }
        let diagnostics = parser.withLock { $0.diagnostics }
        let findings = diagnostics.filter { $0.file != nil }.map { finding in
            var finding = finding
            finding.check = .format
            return finding
        }
        var failure: String?
        switch end {
        case .exited(0): break
        case .exited(1) where !findings.isEmpty: break
        case .timedOut, .canceled: break
        default:
            let said = diagnostics.first { $0.file == nil }.map { ": \($0.message)" } ?? ""
            failure = "Lint not checked: swift format lint \(end.description)\(said) (swift-format ships with the Swift toolchain since 6.0)"
        }
        return AnalysisOutput(findings: findings, failure: failure, end: end)
    }

    /// `swift package diagnose-api-breaking-changes BASELINE`: SwiftPM builds the package at
    /// `baseline` beside this one and compares the public API of its library products. Each
    /// break ("func foo(bar:) has been removed") is a finding without a place in this commit,
    /// its message naming the module and where the baseline declared it. Exit 1 with breaks is
    /// a finding; any other failure means the check was not done.
    public func apiBreakage(since baseline: String, commit: String?) async throws(ProcessError) -> AnalysisOutput {
        let report = Mutex(APIBreakageReport())
        let command = StepCommand("swift", swiftPackage(["diagnose-api-breaking-changes", baseline]))
        let end = try await workspace.run(command, step: .analyzing, commit: commit) { line in
            report.withLock { $0.consume(line) }
        }
        let found = report.withLock { $0 }
        let checkout = APIBreakageReport.baselineCheckout(in: workspace.directory, baseline: baseline)
        let findings = found.breaks.map { item in
            let place = checkout.flatMap { APIBreakageReport.declaration(of: item.change, in: $0) }
            let declared = place.map { " (declared at \($0.file):\($0.line) in \(ShortHash.text(baseline)))" } ?? ""
            return Diagnostic(
                severity: .warning, file: nil, line: nil, column: nil, message: "\(item.module): \(item.change)\(declared)", check: .apiBreakage)
        }
        var failure: String?
        switch end {
        case .timedOut, .canceled: break
        case .exited(0) where found.modules.isEmpty:
            failure =
                "API breakage not checked: swift package diagnose-api-breaking-changes compared no module, as it compares only the modules "
                + "of library products and this package declares none (add `products: [.library(...)]` to Package.swift, or set "
                + "`analyze.api-breakage: false`)"
        case .exited(0): break
        case .exited(1) where !findings.isEmpty: break
        default:
            let said = found.lastError.map { ": \($0)" } ?? ""
            failure = "API breakage not checked: swift package diagnose-api-breaking-changes \(end.description)\(said)"
        }
        return AnalysisOutput(findings: findings, failure: failure, end: end)
    }

    /// Every test, or every test but `skipping` (the second pass of `test.order: failed-first`,
    /// after those ran: a `--skip` each): by the test binary the build made, run as `swift test`
    /// runs it (`everyTestDirectly`), where nothing needs SwiftPM; otherwise `swift test`. With a
    /// `watch`, each failure is told as its line is read, and with fail-fast the first ends the
    /// run: the tests that did not run (but for `skipping`) come back as not run.
    public func test(skipping: [TestCase] = [], commit: String?, watch: TestWatch? = nil) async throws(ProcessError) -> TestOutput {
        let (tests, reports, end): ([TestCase], [SanitizerReport], ProcessEnd)
        if skipping.isEmpty, bot.test.arguments.isEmpty, let binary = testBinary {
            (tests, reports, end) = try await everyTestDirectly(binary: binary, commit: commit, watch: watch)
        } else {
            let skips = skipping.flatMap { ["--skip", TestRerun.pattern(for: $0)] }
            (tests, reports, end) = try await runTests(StepCommand("swift", testArguments + skips), commit: commit, watch: watch, stoppable: true)
        }
        let coverage = bot.test.coverage ? coverage() : nil
        var output = TestOutput(tests: tests, coverage: coverage?.percentage, end: end)
        output.lines = coverage?.lines
        output.sanitizerReports = reports
        if end == .stopped {
            await workspace.log.note("swift test \(end.description): the tests it did not reach are not run")
            output.tests += try await notRun(ran: tests + skipping, commit: commit)
        } else if !end.succeeded, tests.allSatisfy({ $0.status != .failed }) {
            // The test process failed without any test failing: report it as one failed test.
            output.tests.append(.processFailure("swift test \(end.description)"))
        }
        return output
    }

    /// Whether the bot's tests run in parallel, which hides XCTest's measurements.
    public var testsRunInParallel: Bool { bot.test.arguments.contains("--parallel") }

    /// `command` (`swift test`, or the test binary itself): its tests from XCTest's output and
    /// Swift Testing's events. A `watch` hears of each test's end as its line is read; with
    /// fail-fast and `stoppable`, the first failure stops the process (`ProcessEnd.stopped`), and
    /// the test it was running then is left out, not failed: it did not end.
    func runTests(
        _ command: StepCommand, commit: String?, watch: TestWatch? = nil, stoppable: Bool = false
    ) async throws(ProcessError) -> (tests: [TestCase], reports: [SanitizerReport], end: ProcessEnd) {
        // The last run's events, left in place, would be read as this run's tests.
        do {
            try StaleFile.remove(testEvents)
        } catch {
            throw .cannotStart(command: command.executable, reason: error.description)
        }
        // a leftover event stream is truncated by the next swift test
        defer { try? FileManager.default.removeItem(atPath: testEvents) }
        let parser = Mutex((xctest: XCTestOutputParser(root: workspace.seenAs), tally: TestTally()))
        let sanitizer = Mutex(SanitizerReportParser(root: workspace.seenAs))
        let stop =
            stoppable && watch?.failFast == true
            ? EarlyStop { [testEvents, root = workspace.seenAs] in
                await Self.awaitRecords(of: parser.withLock(\.tally.swiftTestingFailed), failuresIn: testEvents, root: root)
            } : nil
        if let stop { watch?.enlist(stop) }
        let end = try await workspace.run(watch == nil ? command : command.lineBuffered(), step: .testing, commit: commit, stop: stop) { line in
            sanitizer.withLock { $0.consume(line) }
            let told = parser.withLock { reading in
                reading.xctest.consume(line)
                return reading.tally.consume(line, parser: reading.xctest)
            }
            guard told.ended > 0, let watch else { return }
            if watch.heard(ended: told.ended, failed: told.failed), stop != nil { watch.halt() }
        }
        let stopped = end == .stopped
        let crash: String? = end.succeeded || stopped ? nil : "the test process ended: \(end.description)"
        var tests = parser.withLock { $0.xctest.finish(crash: crash, stopped: stopped) }
        var swiftTesting = SwiftTestingEventParser(root: workspace.seenAs)
        let stream = workspace.log.secretMask.apply((try? String(contentsOfFile: testEvents, encoding: .utf8)) ?? "")
        for line in stream.split(separator: "\n") { swiftTesting.consume(line) }
        tests += swiftTesting.finish(crash: crash.map { parser.withLock(\.xctest.fatal) ?? $0 }, stopped: stopped)
        let reports = sanitizer.withLock { $0.reports }
        let settled = XCTestOutputParser.settle(end, tests: tests, excusedNoise: parser.withLock { $0.xctest.excusedNoise })
        return (tests, reports, SanitizerReportParser.settle(settled, tests: tests, reports: reports))
    }

    /// The package's own line coverage from the export `--enable-code-coverage` wrote.
    func coverage() -> Coverage.Export? {
        let path = "\(workspace.directory)/.build/\(configuration)/codecov"
        let export = (try? FileManager.default.contentsOfDirectory(atPath: path))?.first { $0.hasSuffix(".json") }
        return export.flatMap { Coverage.read(exportAt: "\(path)/\($0)", root: workspace.seenAs) }
    }

    /// The repository's files with an open warning in `previous`: those whose warnings an
    /// incremental build may not print again.
    static func warnedFiles(_ previous: [IntegrationIssue]) -> Set<String> {
        Set(previous.filter { $0.type == .warning && $0.status != .resolved }.compactMap(\.file).filter { !$0.hasPrefix("/") })
    }

    /// The serialized diagnostics of `files` in the build directory (`.build/<configuration>/
    /// <Module>.build/<File>.dia`), each with when it was written. Only these: a large package has
    /// thousands, and this runs before every build.
    func serializedDiagnostics(of files: Set<String>) -> [String: Date] {
        guard !files.isEmpty else { return [:] }
        let buildDirectory = "\(workspace.directory)/.build/\(configuration)"
        let fileManager = FileManager.default
        let modules = ((try? fileManager.contentsOfDirectory(atPath: buildDirectory)) ?? []).filter { $0.hasSuffix(".build") }
        let stems = Set(files.map { (($0 as NSString).lastPathComponent as NSString).deletingPathExtension })
        var found: [String: Date] = [:]
        for module in modules {
            for stem in stems {
                let path = "\(buildDirectory)/\(module)/\(stem).dia"
                if let modified = try? fileManager.attributesOfItem(atPath: path)[.modificationDate] as? Date { found[path] = modified }
            }
        }
        return found
    }

    /// An incremental build prints nothing for files it does not recompile, so their warnings would
    /// look resolved. `previous`'s warnings in files that were not recompiled this time (their
    /// serialized diagnostics are the ones the build found) and that still exist are kept. What
    /// the build wrote is told by comparing with what it found, not with a clock: an integration
    /// that starts within a second of the last compile must not take its diagnostics for new.
    public func carriedWarnings(from previous: [IntegrationIssue], build: BuildOutput) -> [Diagnostic] {
        let seenFiles = Set(build.diagnostics.compactMap(\.file))
        let root = workspace.directory
        let after = serializedDiagnostics(of: Self.warnedFiles(previous))
        func recompiled(_ file: String) -> Bool {
            let name = "/" + ((file as NSString).lastPathComponent as NSString).deletingPathExtension + ".dia"
            let written = after.filter { $0.key.hasSuffix(name) }
            // No serialized diagnostics of the file at all: nothing says it was not recompiled.
            return written.isEmpty || written.contains { build.diagnosticsBefore[$0.key] != $0.value }
        }
        return previous.compactMap { issue in
            guard issue.type == .warning, issue.status != .resolved, let file = issue.file, !seenFiles.contains(file), !file.hasPrefix("/"),
                FileManager.default.fileExists(atPath: "\(root)/\(file)"), !recompiled(file)
            else { return nil }
            let lines = issue.message.split(separator: "\n", omittingEmptySubsequences: false)
            let notes = lines.dropFirst().compactMap { $0.hasPrefix("note: ") ? String($0.dropFirst(6)) : nil }
            return Diagnostic(severity: .warning, file: file, line: issue.line, column: nil, message: String(lines.first ?? ""), notes: notes)
        }
    }
}
