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
import KilnBuild
import KilnCore
import KilnPresentation
import KilnStore

/// `test.order: failed-first`: the tests most likely to fail run first, in a pass of their own,
/// so that a failure still there is known (and told to the forge) in seconds, not at the end of
/// the suite; then the rest, skipping them. One integration, one set of results: each test once.
extension IntegrationSteps {
    /// The tests to run first: those that failed or were flaky in the integration this one is
    /// compared with (in this cell, for a matrix's), then those whose lines this change touched
    /// (since that integration's commit, or a pull request's base). Empty, for one pass: as
    /// written, with coverage (two passes would each measure part of it), or with nothing to put
    /// first.
    func testsFirst(_ course: Course) async -> (failed: [TestCase], touched: [TestCase]) {
        guard bot.test.order == .failedFirst, !bot.test.coverage else { return ([], []) }
        var seen = Set<String>()
        let failed = (course.previous?.tests ?? []).filter { test in
            (test.status == .failed || test.status == .flaky) && !test.isProcessFailure && (cell == nil || test.cell == cell?.name)
                && seen.insert(TestRerun.filterKey(test)).inserted
        }
        guard let baseline = course.baseline, let commit = course.commit, baseline != commit else { return (failed, []) }
        let changed: ChangedLines
        do {
            changed = try await context.mirrors.changedLines(of: bot.repository, base: baseline, head: commit)
        } catch {
            await log.note("the tests this change touched are not put first: its changed lines are unknown (\(error))")
            return (failed, [])
        }
        let touched = TouchedTests.find(changed, packageAt: workspace.directory).filter { seen.insert(TestRerun.filterKey($0)).inserted }
        return (failed, touched)
    }

    /// Runs `first`, records what it showed (a failure turns the commit status to failure now),
    /// then every other test; with fail-fast and a failure among `first`, the others are not run.
    func testFailedFirst(
        _ package: PackageBuild, first: (failed: [TestCase], touched: [TestCase]), _ course: Course, watch: TestWatch
    ) async throws(Stop) -> TestOutput {
        let commit = course.commit
        let names = { (tests: [TestCase]) in tests.map { "\($0.suite).\($0.name)" }.joined(separator: ", ") }
        if !first.failed.isEmpty {
            let previous = course.previous?.integration.number ?? 0
            await log.header(
                "first, the \(CountText.of(first.failed.count, "test")) that failed or were flaky in #\(previous): \(names(first.failed))")
        }
        if !first.touched.isEmpty {
            await log.header("first, the \(CountText.of(first.touched.count, "test")) this change touched: \(names(first.touched))")
        }
        let first = first.failed + first.touched
        let early = try await attempt { [commit] in try await package.test(only: first, commit: commit, watch: watch) }
        _ = try ended(early.end)
        let failed = early.tests.filter { $0.status == .failed }.count
        watch.tell(TestProgress(tests: early.tests.count, failed: failed))
        if failed > 0, watch.failFast {
            await log.header("\(CountText.of(failed, "test")) failing: fail-fast ends the testing step; the rest are not run")
            // The package's own list names what did not run, not the names put first (a test
            // this change touched is found by reading its source, and may be named wrongly).
            var output = early
            let ran = early.tests.filter { $0.status != .notRun }
            output.tests = try await ran + attempt { [commit] in try await package.notRun(ran: ran, commit: commit) }
            output.end = .stopped
            return output
        }
        if failed > 0 { await log.header("\(CountText.of(failed, "test")) failing so far; now the rest") }
        await log.header("then every other test")
        let rest = try await testAll(package, skipping: first, course, watch: watch)
        _ = try ended(rest.end)
        var output = rest
        output.tests = early.tests.filter { !$0.isProcessFailure } + rest.tests
        output.sanitizerReports = early.sanitizerReports + rest.sanitizerReports
        // The first pass's process failing with no test failing is its own failure to report.
        if let died = early.tests.first(where: \.isProcessFailure) { output.tests.append(died) }
        if !early.end.succeeded, rest.end.succeeded { output.end = early.end }
        watch.tell(TestProgress(tests: output.tests.count, failed: output.tests.filter { $0.status == .failed }.count))
        return output
    }

    /// Fail-fast stopped at a failure that no longer counts (it passed when run again, or its test
    /// is quarantined): the tests it kept from running run now, so that nothing goes untested for
    /// a failure that is none.
    func runWhatFailFastLeft(_ package: PackageBuild, tested: inout TestOutput, _ course: Course) async throws(Stop) {
        guard tested.end == .stopped, !tested.tests.contains(where: \.counts) else { return }
        let left = tested.tests.filter { $0.status == .notRun }
        tested.end = .exited(0)
        guard !left.isEmpty else { return }
        await log.header(
            "the failure that ended the run no longer counts (flaky or quarantined): the \(CountText.of(left.count, "test")) not run, now")
        let rest = try await attempt { [commit = course.commit] in try await package.test(only: left, commit: commit) }
        _ = try ended(rest.end)
        tested.tests = tested.tests.filter { $0.status != .notRun } + rest.tests
        tested.end = rest.end
    }

    /// Runs `body` with a watch on its tests: each failure it hears of is recorded at once (the
    /// page, the JSON and the commit status say "failing so far" while the suite still runs).
    /// Every count goes through one stream, drained before this returns: only the latest waits
    /// to be written, and none is written over a later one.
    func watchingTests(failFast: Bool, _ body: (TestWatch) async throws(Stop) -> TestOutput) async throws(Stop) -> TestOutput {
        let (told, teller) = AsyncStream.makeStream(of: TestProgress.self, bufferingPolicy: .bufferingNewest(1))
        let watch = TestWatch(failFast: failFast) { progress in teller.yield(progress) }
        async let recorded: Void = recordEach(told)
        let outcome: Result<TestOutput, Stop>
        do throws(Stop) {
            outcome = .success(try await body(watch))
        } catch {
            outcome = .failure(error)
        }
        teller.finish()
        await recorded
        return try outcome.get()
    }

    private func recordEach(_ told: AsyncStream<TestProgress>) async {
        for await progress in told {
            do throws(Stop) {
                try await recordProgress(progress)
            } catch {
                await log.note("the tests failing so far were not recorded (\(error)); the result will be when the step ends")
            }
        }
    }

    func recordProgress(_ progress: TestProgress) async throws(Stop) {
        let (store, claim) = (store, claim)
        try await storing { () async throws(StoreError) in try await store.recordProgress(claim, progress) }
    }
}
