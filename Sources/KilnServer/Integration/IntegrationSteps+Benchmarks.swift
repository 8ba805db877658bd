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

extension IntegrationSteps {
    /// package-benchmark's benchmarks (`performance.benchmarks`), run after the tests: each
    /// benchmark × metric is kept as a measurement (its percentiles), judged against the same
    /// measurement in the latest integrations on this host, by the benchmark's own thresholds
    /// where its code sets them, else by `performance.tolerance`. A counter (mallocs,
    /// instructions, syscalls…) that grew is a regression at once: a count does not change with
    /// the machine's load. A time that looks regressed is measured again, that benchmark alone,
    /// and counts only if it is every time, as XCTest's measurements.
    func benchmarkRegressions(_ package: PackageBuild, tests: inout [TestCase], _ course: Course) async throws(Stop) -> [MeasuredRegression] {
        guard let targets = bot.performance.benchmarks, package.hasBenchmarks else { return [] }
        let commit = course.commit
        let run = try await attempt { [commit] in try await package.benchmarks(targets, commit: commit) }
        guard try ended(run.end).succeeded else {
            await log.note("the benchmarks did not run to the end (swift package benchmark \(run.end.description)): none is judged")
            return []
        }
        let scope = await baselineScope()
        var found: [MeasuredRegression] = []
        for measurement in run.measurements {
            var test = measurement.testCase
            test.cell = cell?.name
            regressed: if let (host, before) = scope, let runs = await baselineRuns(of: test, host: host, before: before), !runs.isEmpty {
                test.measurement?.baseline = PerformanceRegression.median(runs.compactMap { BenchmarkPercentiles.value(50, in: $0) })
                if var regression = judge(measurement, runs: runs, host: host) {
                    if measurement.isTime {
                        let (confirmed, values) = try await confirm(measurement, runs: runs, host: host, package: package, commit: commit)
                        test.measurement?.values = values
                        regression = confirmed ?? regression
                        if confirmed == nil { break regressed }
                    }
                    test.measurement?.regressed = true
                    found.append(MeasuredRegression(test: test, regression: regression))
                    await log.note(regression.message(suite: test.suite, name: test.name))
                }
            }
            tests.append(test)
        }
        await log.note("benchmarks: \(run.measurements.count) measurements of \(Set(run.measurements.map(\.benchmark)).count) benchmarks")
        return found
    }

    private func judge(_ measurement: BenchmarkResults.Measurement, runs: [[Double]], host: String) -> PerformanceRegression? {
        guard let word = measurement.word else { return nil }
        return PerformanceRegression.judgeBenchmark(
            measurement.percentiles, baseline: runs, word: word, isTime: measurement.isTime, thresholds: measurement.thresholds,
            tolerance: bot.performance.tolerance, host: host)
    }

    /// A time that looks regressed, measured again (its benchmark alone) until it is not, or has
    /// been `performanceConfirmations` times: the last regression (nil when it was not one) and
    /// the values last measured, which the integration keeps (a busy moment's values would skew
    /// the next baselines).
    private func confirm(
        _ measurement: BenchmarkResults.Measurement, runs: [[Double]], host: String, package: PackageBuild, commit: String?
    ) async throws(Stop) -> (PerformanceRegression?, [Double]) {
        var regression: PerformanceRegression?
        var values = measurement.percentiles
        for round in 1...Self.performanceConfirmations {
            await log.header("measuring \(measurement.benchmark) again (\(round) of \(Self.performanceConfirmations)): \(measurement.metric)")
            let again = try await attempt { [commit] in
                try await package.benchmarks([measurement.target], only: [measurement.benchmark], commit: commit)
            }
            let same = again.measurements.first { $0.benchmark == measurement.benchmark && $0.metric == measurement.metric }
            if again.end.succeeded, let same { values = same.percentiles }
            guard again.end.succeeded, let same, let still = judge(same, runs: runs, host: host) else {
                await log.note(
                    "\(measurement.benchmark): \(measurement.metric) as before when measured again: the machine was busy, not the code slower")
                return (nil, values)
            }
            regression = still
        }
        return (regression, values)
    }
}
