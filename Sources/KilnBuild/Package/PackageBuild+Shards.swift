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

/// `test.shards`: one build, its tests split into parts of about equal recorded duration, the
/// parts run at once in the workspace by the built test binary (`swift test` takes the build
/// directory's lock, so two would run one after the other), their results merged.
extension PackageBuild {
    /// Why the tests cannot run in shards here; nil when they can: only the test binary run
    /// directly runs beside another.
    public var cannotShard: String? {
        testBinary == nil
            ? "the test binary cannot run alone here (coverage, a sanitizer, or build arguments that move the products): one swift test" : nil
    }

    /// Runs `parts` at once, each by the test binary with its own event stream: every test's
    /// result, the first end that was not a success, and each part's run (on `host`, timed by
    /// `clock`; numbered from `first`). With fail-fast, the first failure in any part stops them all.
    public func test(
        shards parts: [[TestCase]], first: Int = 1, commit: String?, watch: TestWatch? = nil, host: String, clock: MonotonicClock
    ) async throws(ProcessError) -> TestOutput {
        let outcomes = await withTaskGroup(of: (Int, Result<TestOutput, ProcessError>, Double).self) { group in
            for (index, part) in parts.enumerated() {
                let shard = shard(first + index)
                group.addTask {
                    let start = clock.now
                    let result: Result<TestOutput, ProcessError>
                    do throws(ProcessError) {
                        result = .success(try await shard.test(only: part, commit: commit, watch: watch))
                    } catch {
                        result = .failure(error)
                    }
                    return (index, result, clock.since(start).seconds)
                }
            }
            var outcomes: [(Int, Result<TestOutput, ProcessError>, Double)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }
        }
        var merged = TestOutput()
        for (index, outcome, seconds) in outcomes {
            let output = try outcome.get()
            merged.add(
                output.tests, sanitizerReports: output.sanitizerReports, end: output.end,
                runs: [ShardRun(index: first + index, host: host, tests: parts[index].count, duration: seconds)])
        }
        return merged
    }

    /// This build, its test processes keeping their own event stream and lists.
    public func shard(_ index: Int) -> PackageBuild {
        var copy = self
        copy.testEvents = testEvents + ".shard\(index)"
        return copy
    }
}

/// How a suite is split into shards.
public enum TestShards {
    /// The least recorded test time a part must carry to be worth its own process (`test.shards:
    /// auto`): a test binary's start, and Kiln's own share, are a fraction of a second.
    public static let shortestPart = 5.0

    /// How many parts `auto` would split `recorded` seconds of tests into, idle executors
    /// permitting: none worth splitting under two parts' worth, and no more than one per test.
    public static func worth(recorded: Double, tests: Int) -> Int {
        let parts = recorded.isFinite ? Int(recorded / shortestPart) : 1
        return max(1, min(parts, tests, TestShardCount.most))
    }

    /// `tests` in at most `count` parts of about equal recorded duration (`durations`, by
    /// `TestRerun.filterKey`): the longest first, each to the part with the least so far; then the
    /// tests with no recorded duration, one to each part in turn. No part is empty.
    public static func split(_ tests: [TestCase], count: Int, durations: [String: Double]) -> [[TestCase]] {
        guard count > 1, tests.count > 1 else { return tests.isEmpty ? [] : [tests] }
        let parts = min(count, tests.count)
        var shards = [[TestCase]](repeating: [], count: parts)
        var loads = [Double](repeating: 0, count: parts)
        let known = tests.compactMap { test in durations[TestRerun.filterKey(test)].map { (test, $0) } }.sorted { $0.1 > $1.1 }
        for (test, duration) in known {
            let lightest = loads.indices.min { loads[$0] < loads[$1] } ?? 0
            shards[lightest].append(test)
            loads[lightest] += duration
        }
        let unknown = tests.filter { durations[TestRerun.filterKey($0)] == nil }
        // the new tests start with the parts that have the fewest tests
        let order = shards.indices.sorted { (shards[$0].count, $0) < (shards[$1].count, $1) }
        for (offset, test) in unknown.enumerated() { shards[order[offset % parts]].append(test) }
        return shards.filter { !$0.isEmpty }
    }

    /// The recorded duration of each test in `previous`, by `TestRerun.filterKey` (a
    /// parameterized test's cases summed).
    public static func durations(_ previous: [TestCase]) -> [String: Double] {
        var durations: [String: Double] = [:]
        for test in previous where test.status != .notRun && !test.isProcessFailure {
            durations[TestRerun.filterKey(test), default: 0] += test.duration
        }
        return durations
    }
}
