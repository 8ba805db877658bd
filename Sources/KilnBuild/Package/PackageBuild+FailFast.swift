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

/// What the testing step hears while its tests run, over all of its passes: how many tests ended
/// and failed so far, told to `record` at each failure (the commit status turns failure then),
/// and whether the first failure ends the run (`test.fail-fast`): every test process it watches
/// then stops, the shards beside the one that failed too, and one that starts after is stopped
/// at once.
public final class TestWatch: Sendable {
    public let failFast: Bool
    private let progress: Mutex<TestProgress>
    private let record: @Sendable (TestProgress) -> Void
    /// The stops of the runs it watches, and whether a failure has stopped them.
    private let stops = Mutex((halted: false, enlisted: [EarlyStop]()))

    public init(failFast: Bool, record: @escaping @Sendable (TestProgress) -> Void) {
        self.failFast = failFast
        self.progress = Mutex(TestProgress(tests: 0, failed: 0))
        self.record = record
    }

    /// A run's stop, asked at the first failure of any run; at once when one has failed already.
    func enlist(_ stop: EarlyStop) {
        let halted = stops.withLock { stops in
            stops.enlisted.append(stop)
            return stops.halted
        }
        if halted { stop.stop() }
    }

    /// Stops every run it watches (`test.fail-fast`: a test failed).
    func halt() {
        let enlisted = stops.withLock { stops in
            stops.halted = true
            return stops.enlisted
        }
        for stop in enlisted { stop.stop() }
    }

    /// Tells `record` the tests so far as a whole pass counted them, after those its lines told:
    /// one channel, so that a count heard earlier is never written over a later one.
    public func tell(_ counted: TestProgress) {
        progress.withLock { $0 = counted }
        record(counted)
    }

    /// Adds tests that ended to the count: the count now.
    private func count(ended: Int, failed: Int) -> TestProgress {
        progress.withLock { progress in
            progress.tests += ended
            progress.failed += failed
            return progress
        }
    }

    /// Counts the tests of a part of the step that ran on another host (`test.shards`), when
    /// it is back, and tells `record` the count: a whole part's arrival is news even without a
    /// failure.
    public func heardElsewhere(ended: Int, failed: Int) {
        record(count(ended: ended, failed: failed))
    }

    /// Counts tests that ended; returns whether any of them failed (and `record` was told).
    func heard(ended: Int, failed: Int) -> Bool {
        let now = count(ended: ended, failed: failed)
        guard failed > 0 else { return false }
        record(now)
        return true
    }
}

extension PackageBuild {
    /// Waits until Swift Testing's event stream holds `count` failed tests (it writes each just
    /// after the console line that told of it), for 2 s at most: stopped before, the failure that
    /// stopped the run would be lost.
    static func awaitRecords(of count: Int, failuresIn events: String, root: String) async {
        guard count > 0 else { return }
        // 200 looks 10 ms apart: 2 s at most
        for _ in 0..<200 {
            var parser = SwiftTestingEventParser(root: root)
            for line in ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").split(separator: "\n") { parser.consume(line) }
            if parser.tests.filter({ $0.status == .failed }).count >= count { return }
            // a stop asked for again, or canceled, ends the wait: the process is stopped either way
            do { try await Task.sleep(for: .milliseconds(10)) } catch { return }
        }
    }

    /// The package's tests that are not among `ran`, as not run: `swift test list` names every
    /// test, XCTest's and Swift Testing's, without running any.
    public func notRun(ran: [TestCase], commit: String?) async throws(ProcessError) -> [TestCase] {
        guard let listed = try await listTests(commit: commit) else { return [] }
        return TestRerun.notRun(listed, ran: ran)
    }

    /// Every test of the package, each once, named as the test output names them (Swift Testing's
    /// without their display names): `swift test list`, which runs none. Nil, with a note in the
    /// log, when it cannot say.
    public func listTests(commit: String?) async throws(ProcessError) -> [TestCase]? {
        // Into a file, not the log: a package's list can be thousands of lines.
        let list = testEvents + ".list"
        // a leftover list is written anew by the next listing
        defer { try? FileManager.default.removeItem(atPath: list) }
        let arguments = ["test", "list", "--skip-build", "-c", configuration] + bot.build.arguments
        let plain = { (word: String) in word.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:+,@".contains($0) } }
        let command = (["swift"] + arguments.map { plain($0) ? $0 : StepCommand.quoted($0) }).joined(separator: " ")
        let end = try await workspace.run(.shell("\(command) > \(StepCommand.quoted(list))"), step: .testing, commit: commit)
        guard end.succeeded else {
            await workspace.log.note("the package's tests are not listed: swift test list \(end.description)")
            return nil
        }
        let listed = ((try? String(contentsOfFile: list, encoding: .utf8)) ?? "").split(separator: "\n")
        return TestRerun.listed(listed)
    }
}

extension TestRerun {
    /// `swift test list`'s specifiers (`Module.Class/testName` for XCTest, `Module.Suite/function()`
    /// or `Module.function()` for Swift Testing) as tests, each once, named as the test output
    /// names them (an XCTest class without its module).
    static func listed(_ listed: [Substring]) -> [TestCase] {
        var result: [TestCase] = []
        var added = Set<String>()
        for specifier in listed where !specifier.hasPrefix("[") && !specifier.contains(" ") && !specifier.isEmpty {
            let (suite, name) = named(specifier)
            guard added.insert("\(suite)/\(name)").inserted else { continue }
            result.append(TestCase(suite: suite, name: name, status: .notRun, duration: 0))
        }
        return result
    }

    /// `listed` but those in `ran`, as not run.
    static func notRun(_ listed: [TestCase], ran: [TestCase]) -> [TestCase] {
        let seen = Set(ran.map(filterKey))
        return listed.filter { !seen.contains(filterKey($0)) }.map { test in
            TestCase(suite: test.suite, name: test.name, status: .notRun, duration: 0)
        }
    }

    /// A test as `--filter` and `--skip` match it: its suite and function, without a display name.
    public static func filterKey(_ test: TestCase) -> String {
        "\(test.suite)/\(test.name.components(separatedBy: " \"").first ?? test.name)"
    }

    /// A listed specifier's suite and name, as the test output gives them.
    static func named(_ specifier: Substring) -> (suite: String, name: String) {
        guard let slash = specifier.firstIndex(of: "/") else {
            // a Swift Testing function outside any suite is its own suite
            let name = specifier.split(separator: ".").last.map(String.init) ?? String(specifier)
            return (String(specifier), name)
        }
        let suite = specifier[..<slash]
        let name = String(specifier[specifier.index(after: (specifier.lastIndex(of: "/") ?? slash))...])
        if name.hasSuffix(")") { return (String(suite), name) }
        // XCTest prints its classes without their module
        return (suite.firstIndex(of: ".").map { String(suite[suite.index(after: $0)...]) } ?? String(suite), name)
    }
}
