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
    /// then every other test.
    func testFailedFirst(_ package: PackageBuild, first: [TestCase], _ course: Course) async throws(Stop) -> TestOutput {
        let commit = course.commit
        let previous = course.previous?.integration.number ?? 0
        let names = first.map { "\($0.suite).\($0.name)" }.joined(separator: ", ")
        await log.header("first, the \(CountText.of(first.count, "test")) that failed or were flaky in #\(previous): \(names)")
        let early = try await attempt { [commit] in try await package.test(only: first, commit: commit) }
        _ = try ended(early.end)
        let failed = early.tests.filter { $0.status == .failed }.count
        try await recordProgress(TestProgress(tests: early.tests.count, failed: failed))
        if failed > 0 { await log.header("\(CountText.of(failed, "test")) failing so far; now the rest") }
        await log.header("then every other test")
        let rest = try await attempt { [commit] in try await package.test(skipping: first, commit: commit) }
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

    func recordProgress(_ progress: TestProgress) async throws(Stop) {
        let (store, claim) = (store, claim)
        try await storing { () async throws(StoreError) in try await store.recordProgress(claim, progress) }
    }
}
