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
    /// compared with (in this cell, for a matrix's). Empty, for one pass: as written, with
    /// coverage (two passes would each measure part of it), or with nothing to put first.
    func testsFirst(_ course: Course) -> [TestCase] {
        guard bot.test.order == .failedFirst, !bot.test.coverage, let previous = course.previous else { return [] }
        var seen = Set<String>()
        return previous.tests.filter { test in
            (test.status == .failed || test.status == .flaky) && !test.isProcessFailure && (cell == nil || test.cell == cell?.name)
                && seen.insert("\(test.suite)\u{1F}\(test.name)").inserted
        }
    }

    /// Runs `first`, records what it showed (a failure turns the commit status to failure now),
    /// then every other test; with fail-fast and a failure among `first`, the others are not run.
    func testFailedFirst(_ package: PackageBuild, first: [TestCase], _ course: Course, watch: TestWatch) async throws(Stop) -> TestOutput {
        let commit = course.commit
        let previous = course.previous?.integration.number ?? 0
        let names = first.map { "\($0.suite).\($0.name)" }.joined(separator: ", ")
        await log.header("first, the \(CountText.of(first.count, "test")) that failed or were flaky in #\(previous): \(names)")
        let early = try await attempt { [commit] in try await package.test(only: first, commit: commit, watch: watch) }
        _ = try ended(early.end)
        let failed = early.tests.filter { $0.status == .failed }.count
        try await recordProgress(TestProgress(tests: early.tests.count, failed: failed))
        if failed > 0, watch.failFast {
            await log.header("\(CountText.of(failed, "test")) failing: fail-fast ends the testing step; the rest are not run")
            var output = early
            output.tests += try await attempt { [commit] in try await package.notRun(ran: early.tests, commit: commit) }
            output.end = .stopped
            return output
        }
        if failed > 0 { await log.header("\(CountText.of(failed, "test")) failing so far; now the rest") }
        await log.header("then every other test")
        let rest = try await attempt { [commit] in try await package.test(skipping: first, commit: commit, watch: watch) }
        _ = try ended(rest.end)
        var output = rest
        output.tests = early.tests.filter { !$0.isProcessFailure } + rest.tests
        output.sanitizerReports = early.sanitizerReports + rest.sanitizerReports
        // The first pass's process failing with no test failing is its own failure to report.
        if let died = early.tests.first(where: \.isProcessFailure) { output.tests.append(died) }
        if !early.end.succeeded, rest.end.succeeded { output.end = early.end }
        try await recordProgress(TestProgress(tests: output.tests.count, failed: output.tests.filter { $0.status == .failed }.count))
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
    /// Only the latest count waits to be written; what is written stays ordered.
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
