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
import Testing

@Suite("A test's history: flip rate and flakiness")
struct TestHistoryTests {
    /// A history from results oldest first, each on its own commit unless `commits` says.
    static func history(_ statuses: [TestStatus], commits: [String]? = nil) -> TestHistory {
        let runs = statuses.enumerated().map { index, status in
            TestRun(
                number: index + 1, commit: commits?[index] ?? "c\(index + 1)", host: "h", endedAt: nil,
                test: TestCase(suite: "S", name: "t", status: status, duration: 1))
        }
        return TestHistory(suite: "S", name: "t", runs: runs.reversed())
    }

    @Test("Flips count changes of result between integrations where the test ran; skipped runs do not count")
    func flips() {
        let steady = Self.history([.passed, .passed, .passed])
        #expect(steady.flips == 0 && steady.flipRate == 0)
        #expect(steady.flakiness == nil)
        let broken = Self.history([.passed, .failed, .failed, .skipped, .passed])
        #expect(broken.flips == 2)
        #expect(broken.flipRate == 2.0 / 3.0)
        #expect(broken.flakiness == nil, "broken once and fixed is not flaky")
        #expect(Self.history([.passed]).flipRate == nil)
    }

    @Test("Flaky: a re-run that passed, a commit it passed and failed on, or a result that keeps changing")
    func flakiness() {
        #expect(Self.history([.passed, .flaky, .passed]).flakiness == .passedOnRerun(number: 2))
        let sameCommit = Self.history([.passed, .failed, .passed], commits: ["a", "b", "b"])
        #expect(sameCommit.flakiness == .sameCommit("b", numbers: [2, 3]))
        let flipping = Self.history([.passed, .failed, .passed, .failed, .passed])
        #expect(flipping.flips == 4)
        #expect(flipping.flakiness == .flipping(flips: 4, integrations: 5))
        #expect(Self.history([.passed, .failed, .passed, .failed]).flakiness == nil, "three changes are not yet enough")
    }

    @Test("A quarantine names a test as Suite/test, with or without the module or display name, and holds through its last day")
    func quarantine() {
        let xctest = TestCase(suite: "MathTests", name: "testRace", status: .failed, duration: 1)
        let swiftTesting = TestCase(suite: "LibTests.SwiftMath", name: "adds() \"Adds\"", status: .failed, duration: 1)
        #expect(QuarantinedTest(test: "MathTests/testRace").matches(xctest))
        #expect(QuarantinedTest(test: "LibTests.MathTests/testRace").matches(xctest), "as swift test --list-tests prints it")
        #expect(!QuarantinedTest(test: "OtherMathTests/testRace").matches(xctest))
        #expect(!QuarantinedTest(test: "MathTests/testRaceAgain").matches(xctest))
        #expect(QuarantinedTest(test: "LibTests.SwiftMath/adds()").matches(swiftTesting))
        #expect(QuarantinedTest(test: "LibTests.SwiftMath/adds() \"Adds\"").matches(swiftTesting))
        let ends = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z: until 2026-12-31
        let entry = QuarantinedTest(test: "MathTests/testRace", until: ends)
        #expect([entry].holding(xctest, at: ends.addingTimeInterval(-1)) != nil, "the last day is still under quarantine")
        #expect([entry].holding(xctest, at: ends) == nil)
    }
}

@Suite("Test history in a matrix")
struct TestHistoryCellTests {
    @Test("A cell's history is its own runs and those from before the bot had a matrix, never another cell's")
    func inCell() {
        let run = { (number: Int, cell: String?, status: TestStatus) in
            TestRun(
                number: number, commit: "c\(number)", host: "h", endedAt: nil,
                test: TestCase(suite: "S", name: "t", status: status, duration: 1, cell: cell))
        }
        let history = TestHistory(
            suite: "S", name: "t",
            runs: [
                run(4, "default-release-none", .failed), run(4, "default-debug-none", .passed), run(3, "default-release-none", .passed),
                run(3, "default-debug-none", .passed), run(2, nil, .passed),
            ])
        #expect(history.inCell("default-debug-none").runs.map(\.number) == [4, 3, 2])
        #expect(history.inCell("default-release-none").runs.map(\.test.status) == [.failed, .passed, .passed])
        #expect(history.inCell(nil).runs.count == 5)
    }
}
