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

extension PackageBuild {
    /// Runs `tests` again, and only them: the tests as they ended this time. A test the run did
    /// not report is missing from the result.
    ///
    /// The test binary the build made is run directly where it can be (`testBinary`), with
    /// XCTest's and Swift Testing's own selections: `swift test` would load the manifest and plan
    /// the build again first, 0.3–0.5 s before the test starts, against 10 ms. Otherwise
    /// `swift test --filter`, with the bot's other test arguments (`--parallel` included).
    public func rerun(_ tests: [TestCase], commit: String?) async throws(ProcessError) -> (tests: [TestCase], end: ProcessEnd) {
        if let binary = testBinary { return try await runDirectly(tests, binary: binary, commit: commit) }
        let arguments = TestRerun.arguments(for: tests, configuration: configuration, events: testEvents, botArguments: bot.test.arguments)
        let (tests, _, end) = try await runTests(StepCommand("swift", arguments), commit: commit)
        return (tests, end)
    }

    /// Runs only `tests`, for a re-run of what failed (`Rerun.Scope.failed`) or the first pass of
    /// `test.order: failed-first`: their results and the run's sanitizer reports. Coverage is not
    /// measured: part of the tests would say little. With fail-fast, those after the first failure
    /// come back as not run.
    public func test(only tests: [TestCase], commit: String?, watch: TestWatch? = nil) async throws(ProcessError) -> TestOutput {
        var output: TestOutput
        if let binary = testBinary {
            let run = try await runDirectly(tests, binary: binary, commit: commit, watch: watch)
            output = TestOutput(tests: run.tests, coverage: nil, end: run.end)
        } else {
            let arguments = TestRerun.arguments(for: tests, configuration: configuration, events: testEvents, botArguments: bot.test.arguments)
            let (found, reports, end) = try await runTests(StepCommand("swift", arguments), commit: commit, watch: watch, stoppable: true)
            output = TestOutput(tests: found, coverage: nil, end: end)
            output.sanitizerReports = reports
            if !end.succeeded, end != .stopped, found.allSatisfy({ $0.status != .failed }) {
                output.tests.append(.processFailure("swift test \(end.description)"))
            }
        }
        if output.end == .stopped {
            await workspace.log.note("the tests \(output.end.description): those it did not reach are not run")
            let ran = Set(output.tests.map(TestRerun.filterKey))
            output.tests += tests.filter { !ran.contains(TestRerun.filterKey($0)) }.map { test in
                TestCase(suite: test.suite, name: test.name, status: .notRun, duration: 0)
            }
        }
        return output
    }

    /// Runs `tests` again, serially, for what `--parallel` hid: their measurements.
    public func measure(_ tests: [TestCase], commit: String?) async throws(ProcessError) -> (tests: [TestCase], end: ProcessEnd) {
        if let binary = testBinary { return try await runDirectly(tests, binary: binary, commit: commit) }
        let arguments = TestRerun.arguments(
            for: tests, configuration: configuration, events: testEvents, botArguments: bot.test.arguments, serial: true)
        let (tests, _, end) = try await runTests(StepCommand("swift", arguments), commit: commit)
        return (tests, end)
    }

    /// The test binary SwiftPM built (`.build/<configuration>/<Package>PackageTests.xctest`), as
    /// the build sees it, when running it alone does what `swift test` would: nil when the bot's
    /// arguments move the build products or sanitize (SwiftPM then sets up more than the
    /// binary), when it measures coverage, or when there is not exactly one such binary.
    var testBinary: String? {
        let arguments = bot.build.arguments + bot.test.arguments
        guard !bot.test.coverage, !arguments.contains(where: { argument in TestRerun.directBlockers.contains { argument.hasPrefix($0) } })
        else { return nil }
        let products = (try? FileManager.default.contentsOfDirectory(atPath: "\(workspace.directory)/.build/\(configuration)")) ?? []
        let binaries = products.filter { $0.hasSuffix("PackageTests.xctest") }
        guard binaries.count == 1, let binary = binaries.first else { return nil }
        return "\(workspace.seenAs)/.build/\(configuration)/\(binary)"
    }

    /// Every test, by the test binary run as `swift test --skip-build` runs it: with no argument
    /// for XCTest's tests, then with `--testing-library swift-testing` and the event stream for
    /// Swift Testing's; the environment is the same (measured: SwiftPM adds only `NO_COLOR`,
    /// which only a terminal would read). What is left out is SwiftPM's own start, loading the
    /// manifest and planning the build: 0.25 s of both CPU and wall on every integration.
    func everyTestDirectly(binary: String, commit: String?, watch: TestWatch?) async throws(ProcessError) -> (
        tests: [TestCase], reports: [SanitizerReport], end: ProcessEnd
    ) {
        let xctest = try await runTests(StepCommand(binary), commit: commit, watch: watch, stoppable: true)
        if xctest.end == .stopped { return xctest }
        let arguments = ["--testing-library", "swift-testing", "--experimental-event-stream-output", testEvents]
        var swiftTesting = try await runTests(StepCommand(binary, arguments), commit: commit, watch: watch, stoppable: true)
        // A binary without any Swift Testing test ends EX_UNAVAILABLE: no test found, which
        // `swift test` takes for success, as XCTest's pass does its empty run.
        if swiftTesting.end == .exited(TestRerun.noTestsFound), swiftTesting.tests.isEmpty { swiftTesting.end = .exited(0) }
        return (
            xctest.tests + swiftTesting.tests, xctest.reports + swiftTesting.reports, Self.end(xctest: xctest.end, swiftTesting: swiftTesting.end)
        )
    }

    /// How a run of XCTest's tests, then Swift Testing's, ended: the first end that was not a
    /// success; but stopped when Swift Testing's was (`test.fail-fast`: a failure XCTest's run
    /// told of as it exited stopped the next run at once), so that the tests it did not reach are
    /// named not run.
    static func end(xctest: ProcessEnd, swiftTesting: ProcessEnd) -> ProcessEnd {
        swiftTesting == .stopped || xctest.succeeded ? swiftTesting : xctest
    }

    /// XCTest's tests by their specifiers (`Module.Class/test`, found in the binary's own list:
    /// the output names no module), then Swift Testing's with `--testing-library swift-testing`
    /// and a `--filter` each, as `swift test` passes them.
    private func runDirectly(_ tests: [TestCase], binary: String, commit: String?, watch: TestWatch? = nil) async throws(ProcessError) -> (
        tests: [TestCase], end: ProcessEnd
    ) {
        var found: [TestCase] = []
        var end = ProcessEnd.exited(0)
        let xctest = tests.filter { !TestRerun.isSwiftTesting($0) }
        if !xctest.isEmpty {
            // Into a file, not the log: a package's list can be thousands of lines.
            let list = testEvents + ".list"
            // a leftover list is written anew by the next re-run
            defer { try? FileManager.default.removeItem(atPath: list) }
            let listing = try await workspace.run(
                .shell("\(StepCommand.quoted(binary)) --list-tests > \(StepCommand.quoted(list))"), step: .testing, commit: commit)
            let listed = ((try? String(contentsOfFile: list, encoding: .utf8)) ?? "").components(separatedBy: "\n")
            let specifiers = TestRerun.specifiers(for: xctest, listed: listed)
            end = listing
            if listing.succeeded, !specifiers.isEmpty {
                let run = try await runTests(
                    StepCommand(binary, [specifiers.joined(separator: ",")]), commit: commit, watch: watch, stoppable: true)
                (found, end) = (run.tests, run.end)
            }
        }
        if end == .stopped { return (found, end) }
        let swiftTesting = tests.filter(TestRerun.isSwiftTesting)
        if !swiftTesting.isEmpty {
            let arguments =
                ["--testing-library", "swift-testing", "--experimental-event-stream-output", testEvents]
                + swiftTesting.flatMap { ["--filter", TestRerun.pattern(for: $0)] }
            let run = try await runTests(StepCommand(binary, arguments), commit: commit, watch: watch, stoppable: true)
            found += run.tests
            end = Self.end(xctest: end, swiftTesting: run.end)
        }
        return (found, end)
    }
}
