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

extension IntegrationSteps {
    /// How many of a bot's latest integrations a failing test's history is read from.
    static let historyWindow = 20
    /// More failing tests than this is a breakage, not flakiness: their histories are not read.
    static let historyLookups = 20

    func test(_ package: PackageBuild, built: BuildOutput, _ course: inout Course) async throws(Stop) -> TestOutput {
        guard bot.test.enabled, built.succeeded else { return TestOutput() }
        try await enter(.testing, &course)
        let commit = course.commit
        let rerunning = try await failedTestsToRerun()
        let first = await testsFirst(course)
        var tested = try await watchingTests(failFast: bot.test.failFast.applies(toPullRequest: integration.pullRequest != nil)) {
            watch throws(Stop) in
            if let rerunning {
                return try await attempt { [commit] in try await package.test(only: rerunning, commit: commit, watch: watch) }
            } else if !first.failed.isEmpty || !first.touched.isEmpty {
                return try await testFailedFirst(package, first: first, course, watch: watch)
            } else {
                return try await testAll(package, skipping: [], course, watch: watch)
            }
        }
        _ = try ended(tested.end)
        let now = context.clock.now
        for index in tested.tests.indices where bot.test.quarantine.holding(tested.tests[index], at: now) != nil {
            tested.tests[index].quarantined = true
        }
        try await rerunFailures(package, tested: &tested, course)
        try await measureSerially(package, tested: &tested, course)
        try await flakyByHistory(&tested.tests)
        try await runWhatFailFastLeft(package, tested: &tested, course)
        let flaky = tested.tests.filter { $0.status == .flaky }
        if !flaky.isEmpty {
            let names = flaky.map { "\($0.suite).\($0.name)" }.joined(separator: ", ")
            await log.note("\(flaky.count) flaky test\(flaky.count == 1 ? "" : "s"), not counted as failures: \(names)")
        }
        return tested
    }

    /// For a failed-only re-run, the tests that failed in the integration it runs again (in this
    /// cell, for a matrix's); nil to run them all: not such a re-run, or nothing failed by name
    /// there (a crashed test process, a build error).
    func failedTestsToRerun() async throws(Stop) -> [TestCase]? {
        guard let rerun = integration.rerunOf, rerun.only == .failed else { return nil }
        let original = try await original(rerun)
        let failed = Rerun.failedTests(of: original, cell: cell?.name)
        guard !failed.isEmpty else {
            await log.header("#\(rerun.number) has no failed test to run alone: running them all")
            return nil
        }
        let names = failed.map { "\($0.suite).\($0.name)" }.joined(separator: ", ")
        await log.header("running the \(CountText.of(failed.count, "test")) that failed in #\(rerun.number) again: \(names)")
        return failed
    }

    /// The integration a re-run runs again, as recorded.
    func original(_ rerun: Rerun) async throws(Stop) -> IntegrationDetail {
        let (store, bot) = (store, bot.name)
        let found = try await storing { () async throws(StoreError) in try await store.integration(bot: bot, number: rerun.number) }
        guard let found else {
            throw stop(.internalError, .fault(stage: .other, message: "integration #\(rerun.number), which this re-runs, is gone"))
        }
        return found
    }

    /// A failed-only re-run that passed says that what failed did not fail again.
    func notReproduced(_ outcome: inout IntegrationOutcome) {
        guard let rerun = integration.rerunOf, rerun.only == .failed, outcome.result.isPassing, outcome.reason == nil else { return }
        outcome.reason = .failuresDidNotReproduce(number: rerun.number)
    }

    /// Runs the tests that failed here but passed in the previous integration again, up to
    /// `test.retries` times, before they count as failures: those that pass become `flaky`.
    func rerunFailures(_ package: PackageBuild, tested: inout TestOutput, _ course: Course) async throws(Stop) {
        guard bot.test.retries > 0, tested.tests.contains(where: \.counts) else { return }
        let (previous, commit) = (course.previous, course.commit)
        var candidates = TestRerun.candidates(tested.tests, previous: previous?.tests ?? [])
        guard let previous, !candidates.isEmpty else { return }
        for round in 1...bot.test.retries where !candidates.isEmpty {
            let names = candidates.map { "\($0.suite).\($0.name)" }.joined(separator: ", ")
            let count = "\(candidates.count) test\(candidates.count == 1 ? "" : "s")"
            await log.header("re-running \(count) that passed in #\(previous.integration.number) (\(round) of \(bot.test.retries)): \(names)")
            let rerun = try await attempt { [commit, candidates] in try await package.rerun(candidates, commit: commit) }
            _ = try ended(rerun.end)
            tested.tests = TestRerun.settle(tested.tests, rerun: rerun.tests)
            candidates = candidates.filter { candidate in !tested.tests.contains { $0.key == candidate.key && $0.status == .flaky } }
        }
    }

    /// Under `--parallel`, SwiftPM prints only failing tests' output, and with it every
    /// measurement: the passing tests that measure run again, serially, for their values. What
    /// the parallel run did print (XCTest fails a measurement that varies too much, which is when
    /// other tests ran beside it) was measured under that load and is replaced; a test whose
    /// serial run gives no measurement keeps none.
    func measureSerially(_ package: PackageBuild, tested: inout TestOutput, _ course: Course) async throws(Stop) {
        guard package.testsRunInParallel else { return }
        let measuring = MeasuringTests.find(tested.tests, packageAt: workspace.directory)
        guard !measuring.isEmpty else { return }
        let names = measuring.map { "\($0.suite).\($0.name)" }.joined(separator: ", ")
        await log.header("measuring \(measuring.count) test\(measuring.count == 1 ? "" : "s") serially (--parallel hides measurements): \(names)")
        let keys = Set(measuring.map(\.key))
        for index in tested.tests.indices where keys.contains(tested.tests[index].key) { tested.tests[index].measurement = nil }
        let run = try await attempt { [commit = course.commit] in try await package.measure(measuring, commit: commit) }
        _ = try ended(run.end)
        for measured in run.tests where measured.status == .passed {
            guard let measurement = measured.measurement, let index = tested.tests.firstIndex(where: { $0.key == measured.key }) else { continue }
            tested.tests[index].measurement = measurement
        }
    }

    /// A failure of a test whose own history says it is flaky (a re-run that passed, a commit it
    /// both passed and failed on, a result that keeps changing) is a flaky failure: it blames
    /// nobody. Its message says why.
    ///
    /// A history the store cannot give ends the integration, as a predecessor it cannot give does
    /// (`previousDetail`): judged without it, a flaky failure would blame and mail a committer.
    func flakyByHistory(_ tests: inout [TestCase]) async throws(Stop) {
        let failed = tests.indices.filter { tests[$0].counts && !tests[$0].isProcessFailure }
        guard !failed.isEmpty, failed.count <= Self.historyLookups else { return }
        for index in failed {
            let test = tests[index]
            let history: TestHistory
            do {
                history = try await store.testHistory(bot: bot.name, suite: test.suite, name: test.name, limit: Self.historyWindow)
            } catch {
                throw stop(.internalError, .fault(stage: .readingTestHistory(test: "\(test.suite).\(test.name)"), message: "\(error)"))
            }
            guard let reason = history.inCell(cell?.name).flakiness else { continue }
            tests[index].status = .flaky
            tests[index].message = "flaky by its history (\(reason.sentence)): \(test.message ?? "failed")"
        }
    }

    /// Where baselines come from: this host, and for a bisect integration the integrations before
    /// the one it bisects. Nil when neither can be told.
    func baselineScope() async -> (host: String, before: Int)? {
        guard let host = integration.host else { return nil }
        guard let bisection = integration.bisectionID else { return (host, Int.max) }
        let store = store
        guard
            let found = await context.logger.bestEffort(
                "reading bisection \(bisection)", loses: "this bisect integration's measurements are not judged",
                { () async throws(StoreError) in try await store.bisection(id: bisection) }),
            let bisected = found?.bisected
        else { return nil }
        return (host, bisected)
    }

    /// The values `test` measured in the bot's latest branch integrations on `host` before
    /// `before` (`performance.baseline` of them, in this integration's cell); nil when its
    /// history cannot be read.
    func baseline(of test: TestCase, host: String, before: Int) async -> [Double]? {
        await baselineRuns(of: test, host: host, before: before).map { Array($0.joined()) }
    }

    /// The same, each integration's values apart, latest first.
    func baselineRuns(of test: TestCase, host: String, before: Int) async -> [[Double]]? {
        let (store, name) = (store, bot.name)
        guard
            let history = await context.logger.bestEffort(
                "reading the history of \(test.suite).\(test.name)", loses: "its measurement is not judged against a baseline",
                { () async throws(StoreError) in try await store.testHistory(bot: name, suite: test.suite, name: test.name, limit: Self.historyWindow)
                })
        else { return nil }
        let runs = history.inCell(cell?.name).runs.filter { $0.host == host && $0.number < before }.compactMap(\.test.measurement?.values)
        return Array(runs.prefix(bot.performance.baseline))
    }

    /// How many times a measurement that looks regressed is measured again before it counts:
    /// a slowdown that is real is there every time, a busy moment of the machine is not.
    static let performanceConfirmations = 2

    /// Each passing test that measured something (a flaky one by the run that passed), judged
    /// against the same test's measurements in the bot's latest branch integrations on this host (`performance.baseline` of them;
    /// machines differ, so other hosts' do not count). No baseline yet is no regression. A test
    /// that looks regressed is measured again, alone and serially, and is a regression only if
    /// it is every time. Each measurement keeps the median of its baseline, for the pages.
    ///
    /// A bisect integration is judged against the baseline the integration it bisects had (the
    /// branch's integrations before it), so that an old commit is slow or fast by the same rule.
    func performanceRegressions(_ package: PackageBuild, tests: inout [TestCase], _ course: Course) async throws(Stop) -> [MeasuredRegression] {
        guard let (host, before) = await baselineScope() else { return [] }
        var found: [MeasuredRegression] = []
        let tolerance = bot.performance.tolerance
        for index in tests.indices where tests[index].status == .passed || tests[index].status == .flaky {
            let test = tests[index]
            guard let measurement = test.measurement, let baseline = await baseline(of: test, host: host, before: before) else { continue }
            tests[index].measurement?.baseline = baseline.isEmpty ? nil : PerformanceRegression.median(baseline)
            let judge = { (values: [Double]) in
                PerformanceRegression.judge(values, baseline: baseline, tolerance: tolerance, host: host)
            }
            guard var regression = judge(measurement.values) else { continue }
            for round in 1...Self.performanceConfirmations {
                await log.header(
                    "measuring \(test.suite).\(test.name) again (\(round) of \(Self.performanceConfirmations)): \(regression.message(suite: test.suite, name: test.name))"
                )
                let again = try await attempt { [commit = course.commit] in try await package.measure([test], commit: commit) }
                _ = try ended(again.end)
                let values = again.tests.first { $0.key == test.key && $0.status == .passed }?.measurement?.values
                guard let values, let confirmed = judge(values) else {
                    await log.note("\(test.suite).\(test.name) is not slower when measured again: the machine was busy, not the code slower")
                    tests[index].measurement?.values = values ?? measurement.values
                    break
                }
                regression = confirmed
                if round == Self.performanceConfirmations {
                    tests[index].measurement?.regressed = true
                    found.append(MeasuredRegression(test: tests[index], regression: regression))
                    await log.note(regression.message(suite: test.suite, name: test.name))
                }
            }
        }
        return found
    }
}
