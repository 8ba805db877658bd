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

/// One result of a test: the integration of its bot's branch it ran in, and how it ended.
public struct TestRun: Sendable, Hashable {
    public var number: Int
    public var commit: String?
    public var host: String?
    public var endedAt: Date?
    public var test: TestCase

    public init(number: Int, commit: String?, host: String?, endedAt: Date?, test: TestCase) {
        self.number = number
        self.commit = commit
        self.host = host
        self.endedAt = endedAt
        self.test = test
    }
}

/// A test's results across its bot's integrations (within retention), newest first, and what
/// they say about it: how often its result changes, and whether it is flaky.
public struct TestHistory: Sendable, Hashable {
    public var suite: String
    public var name: String
    public var runs: [TestRun]

    /// A test whose result changed this often within the history is flaky, even if no re-run
    /// caught it (a re-run only happens when the previous integration passed).
    public static let flakyFlips = 4

    /// The runs in the matrix cell `cell` (and those from before the bot had a matrix); all of
    /// them when nil. Each cell is judged by its own history: a test slow under the Thread
    /// Sanitizer, or failing only in release, says nothing of the others.
    public func inCell(_ cell: String?) -> TestHistory {
        guard let cell else { return self }
        return TestHistory(suite: suite, name: name, runs: runs.filter { $0.test.cell == nil || $0.test.cell == cell })
    }

    public init(suite: String, name: String, runs: [TestRun]) {
        self.suite = suite
        self.name = name
        self.runs = runs
    }

    /// The results that passed or failed (flaky ones count as both: they did both), oldest first.
    private var outcomes: [(run: TestRun, passed: Bool)] {
        runs.reversed().compactMap { run in
            switch run.test.status {
            case .passed, .flaky: (run, true)
            case .failed: (run, false)
            case .skipped, .notRun: nil
            }
        }
    }

    /// How many times the result went from passed to failed or back between one integration
    /// and the next where the test ran.
    public var flips: Int {
        zip(outcomes, outcomes.dropFirst()).filter { $0.passed != $1.passed }.count
    }

    /// `flips` over the chances to flip; nil with fewer than two results.
    public var flipRate: Double? {
        let count = outcomes.count
        return count > 1 ? Double(flips) / Double(count - 1) : nil
    }

    /// Why the test is flaky, or nil when its history does not say so: a re-run that passed, a
    /// commit on which it both passed and failed, or a result that keeps changing.
    public var flakiness: Flakiness? {
        if let run = runs.first(where: { $0.test.status == .flaky }) {
            return .passedOnRerun(number: run.number)
        }
        var byCommit: [String: [TestRun]] = [:]
        for run in runs.reversed() where run.test.status == .passed || run.test.status == .failed {
            if let commit = run.commit { byCommit[commit, default: []].append(run) }
        }
        for run in runs.reversed() {
            guard let commit = run.commit, let same = byCommit[commit], Set(same.map(\.test.status)).count > 1 else { continue }
            return .sameCommit(commit, numbers: same.map(\.number))
        }
        if flips >= Self.flakyFlips {
            return .flipping(flips: flips, integrations: outcomes.count)
        }
        return nil
    }

    /// What in a test's history says it is flaky.
    public enum Flakiness: Sendable, Hashable {
        /// It failed, then passed when run again, in integration `number`.
        case passedOnRerun(number: Int)
        /// It passed and failed on the same commit, in integrations `numbers`.
        case sameCommit(String, numbers: [Int])
        /// Its result changed `flips` times in its last `integrations`.
        case flipping(flips: Int, integrations: Int)
    }
}
