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
import KilnTestSupport
import Testing

@testable import KilnBuild

@Suite("Re-running failed tests")
struct TestRerunTests {
    let xctest = TestCase(suite: "MathTests", name: "testAdds", status: .failed, duration: 1, message: "nope")
    let swiftTesting = TestCase(suite: "LibTests.SwiftMath", name: "adds() \"Adds\"", status: .failed, duration: 1)
    let free = TestCase(suite: "LibTests.free()", name: "free()", status: .failed, duration: 1)

    @Test("Only failures that passed (or were flaky) in the previous integration are re-run")
    func candidates() {
        let brandNew = TestCase(suite: "MathTests", name: "testNew", status: .failed, duration: 1)
        let failedBefore = TestCase(suite: "MathTests", name: "testOld", status: .failed, duration: 1)
        let crashed = TestCase(suite: "swift test", name: "run", status: .failed, duration: 0)
        var previous = [xctest, swiftTesting, failedBefore, crashed]
        previous[0].status = .passed
        previous[1].status = .flaky
        let chosen = TestRerun.candidates([xctest, swiftTesting, brandNew, failedBefore, crashed], previous: previous)
        #expect(chosen.map(\.name) == [xctest.name, swiftTesting.name])
        #expect(TestRerun.candidates([xctest], previous: []).isEmpty, "nothing to compare with: nothing is re-run")
    }

    @Test("The re-run selects exactly the failed tests and keeps the bot's other arguments")
    func arguments() throws {
        let arguments = TestRerun.arguments(
            for: [xctest, swiftTesting, free], configuration: "debug", events: "/tmp/e.jsonl",
            botArguments: ["--parallel", "--filter", "Slow", "--skip=Fast", "-Xswiftc", "-DCI"])
        #expect(
            arguments == [
                "test", "--skip-build", "-c", "debug", "--experimental-event-stream-output", "/tmp/e.jsonl", "--parallel", "-Xswiftc", "-DCI",
                "--filter", #"(^|\.)MathTests/(.*/)?testAdds(/|$)"#,
                "--filter", #"(^|\.)LibTests\.SwiftMath/(.*/)?adds\(\)(/|$)"#,
                "--filter", #"(^|\.)LibTests\.free\(\)(/|$)"#,
            ])
        func matches(_ pattern: String, _ specifier: String) throws -> Bool {
            try NSRegularExpression(pattern: pattern).firstMatch(in: specifier, range: NSRange(specifier.startIndex..., in: specifier)) != nil
        }
        let xcPattern = arguments[arguments.count - 5]
        #expect(try matches(xcPattern, "LibTests.MathTests/testAdds"))
        #expect(try !matches(xcPattern, "LibTests.MathTests/testAddsMore"), "a test whose name starts the same is not run")
        #expect(try !matches(xcPattern, "LibTests.OtherMathTests/testAdds"), "nor one of a suite whose name ends the same")
        let stPattern = arguments[arguments.count - 3]
        #expect(try matches(stPattern, "LibTests.SwiftMath/adds()/LibTests.swift:4:6"))
        #expect(try matches(stPattern, "LibTests.SwiftMath/Nested/adds()/LibTests.swift:9:6"))
        #expect(try !matches(stPattern, "LibTests.SwiftMath/addsAgain()/LibTests.swift:5:6"))
    }

    @Test("A serial re-run, for measurements --parallel hides, drops --parallel and --num-workers and keeps the rest")
    func serialArguments() {
        let arguments = TestRerun.arguments(
            for: [xctest], configuration: "debug", events: "/e",
            botArguments: ["--parallel", "--num-workers", "4", "--num-workers=2", "-Xswiftc", "-DCI"],
            serial: true)
        #expect(
            arguments == [
                "test", "--skip-build", "-c", "debug", "--experimental-event-stream-output", "/e", "-Xswiftc", "-DCI", "--filter",
                #"(^|\.)MathTests/(.*/)?testAdds(/|$)"#,
            ])
    }

    @Test("The tests that measure are found by what the run printed and in the package's test sources, by suite and function")
    func measuringTests() throws {
        let package = try TemporaryDirectory()
        try package.write(
            "Tests/LibTests/SpeedTests.swift",
            """
            import XCTest

            final class SpeedTests: XCTestCase {
                func testSort() {
                    measure { _ = (0..<1000).sorted() }
                }
                func testPlain() { XCTAssertTrue(true) }  // measure { } in a comment is not a call
                func testMetrics() {
                    measure(metrics: [XCTClockMetric()]) { _ = 1 }
                }
                func testNamedLikeIt() { measureSomething() }
            }
            final class OtherTests: XCTestCase {
                func testSort() { XCTAssertTrue(true) }
            }

            """)
        let passed = { (suite: String, name: String) in TestCase(suite: suite, name: name, status: .passed, duration: 0.1) }
        let tests = [
            passed("SpeedTests", "testSort"), passed("SpeedTests", "testPlain"), passed("SpeedTests", "testMetrics"),
            passed("SpeedTests", "testNamedLikeIt"), passed("OtherTests", "testSort"),
        ]
        let found = MeasuringTests.find(tests, packageAt: package.path)
        #expect(found.map(\.key) == ["SpeedTests/testSort", "SpeedTests/testMetrics"])
        var measured = tests
        measured[0].measurement = TestMeasurement(values: [0.1, 0.1, 0.1])
        measured[2].status = .failed
        #expect(MeasuringTests.find(measured, packageAt: package.path).map(\.key) == ["SpeedTests/testSort"], "a failed test is not measured again")
        // A measurement printed under --parallel (XCTest failed it for varying, beside other
        // tests) is measured again too, even from a test no source scan would find.
        measured[3].measurement = TestMeasurement(values: [0.1, 0.3, 0.2])
        #expect(MeasuringTests.find(measured, packageAt: package.path).map(\.key) == ["SpeedTests/testSort", "SpeedTests/testNamedLikeIt"])
    }

    @Test("A failure that passes when run again becomes flaky; one that fails again stays failed")
    func settle() {
        var passed = xctest
        passed.status = .passed
        let settled = TestRerun.settle([xctest, swiftTesting], rerun: [passed, swiftTesting])
        #expect(settled.map(\.status) == [.flaky, .failed])
        #expect(settled.first?.message == "nope", "the first failure's message is kept")
        var measured = passed
        measured.measurement = TestMeasurement(values: [0.2, 0.2, 0.2])
        #expect(TestRerun.settle([xctest], rerun: [measured]).first?.measurement == measured.measurement, "measured by the run that passed")
    }

    @Test("Run directly, XCTest's tests are chosen by their specifiers in the binary's list, Swift Testing's by filter; a sanitizer keeps swift test")
    func direct() {
        let failed = [
            TestCase(suite: "MathTests", name: "testFlaky", status: .failed, duration: 0),
            TestCase(suite: "LibTests.Sums", name: "adds()", status: .failed, duration: 0),
            TestCase(suite: "LibTests.Sums", name: "named() \"named one\"", status: .failed, duration: 0),
        ]
        #expect(failed.map(TestRerun.isSwiftTesting) == [false, true, true])
        let listed = [
            "", "Listing 3 tests in debug.xctest:", "", "LibTests.MathTests/testAdds", "LibTests.MathTests/testFlaky", "Other.MathTestsTwo/testFlaky",
        ]
        #expect(TestRerun.specifiers(for: [failed[0]], listed: listed) == ["LibTests.MathTests/testFlaky"])
        #expect(StepCommand.quoted("/w/it's") == "'/w/it'\\''s'")
        #expect(TestRerun.directBlockers.contains { "--sanitize=thread".hasPrefix($0) })
    }

    @Test("The tests a stopped run did not reach are named as the output names them, each once, none that ran")
    func notRun() {
        let listed: [Substring] = [
            "[0/1] Planning build", "LibTests.MathTests/testAdds", "LibTests.MathTests/testMaybeFails", "LibTests.SwiftMath/adds()",
            "LibTests.SwiftMath/addsAgain()", "LibTests.SwiftMath/Inner/deep(x:)", "LibTests.free()", "LibTests.MathTests/testAdds",
        ]
        let ran = [xctest, swiftTesting]  // MathTests.testAdds, LibTests.SwiftMath adds() "Adds"
        let left = TestRerun.notRun(TestRerun.listed(listed), ran: ran)
        #expect(left.allSatisfy { $0.status == .notRun && $0.duration == 0 })
        #expect(
            left.map(\.key) == [
                "MathTests/testMaybeFails", "LibTests.SwiftMath/addsAgain()", "LibTests.SwiftMath/deep(x:)", "LibTests.free()/free()",
            ])
        #expect(TestRerun.notRun(TestRerun.listed(listed), ran: [free]).map(\.key).contains("LibTests.free()/free()") == false)
    }

    @Test("Each test's end is counted as its line streams: XCTest's as its parser judges it, Swift Testing's console lines")
    func tally() {
        var parser = XCTestOutputParser(root: "/w")
        var tally = TestTally()
        var heard: [(ended: Int, failed: Int)] = []
        let output = [
            "Test Case 'MathTests.testAdds' started at 2026-11-28 21:41:23.869",
            "Test Case 'MathTests.testAdds' passed (0.001 seconds)",
            "Test Case 'MathTests.testMaybeFails' started at 2026-11-28 21:41:23.870",
            "/w/Tests/LibTests/X.swift:5: error: MathTests.testMaybeFails : XCTAssertEqual failed: (\"3\") is not equal to (\"4\") - bad",
            "Test Case 'MathTests.testMaybeFails' failed (0.0 seconds)",
            "Test Suite 'MathTests' failed at 2026-11-28 21:41:24.871",
            "◇ Test free() started.",
            "✔ Test free() passed after 0.001 seconds.",
            "◇ Test case passing 1 argument x → 1 to three(x:) started.",
            "✘ Test \"Named\" recorded an issue at S.swift:5:33: Expectation failed: (add(2, 2) → 4) == 5",
            "✔ Test three(x:) with 2 test cases passed after 0.001 seconds.",
            "\u{1B}[91m✘\u{1B}[0m Test \"Named\" failed after 0.001 seconds with 1 issue.",
            "✘ Suite STests failed after 0.001 seconds with 1 issue.",
            "✘ Test run with 4 tests in 1 suite failed after 0.001 seconds with 1 issue.",
        ]
        for line in output {
            parser.consume(Substring(line))
            let told = tally.consume(Substring(line), parser: parser)
            if told.ended > 0 { heard.append(told) }
        }
        #expect(heard.map(\.ended) == [1, 1, 1, 1, 1] && heard.map(\.failed) == [0, 1, 0, 0, 1], "\(heard)")
    }

    @Test("The tests a change touched are named from the lines it changed, as the output names them")
    func touched() throws {
        let package = try TemporaryDirectory()
        let xctests = """
            import XCTest

            final class MathTests: XCTestCase {
                func testAdds() {
                    XCTAssertEqual(1 + 2, 3)
                }

                func helper() -> Int { 3 }

                func testSubtracts() { XCTAssertEqual(3 - 2, 1) }
            }

            """
        let swiftTests = """
            import Testing

            @Suite struct SwiftMath {
                @Test("Adds") func adds() {
                    #expect(2 + 2 == 4)
                }

                @Test(arguments: [1, 2])
                func three(x: Int, _ y: Int = 0) {
                    #expect(x > 0)
                }

                struct Inner {
                    @Test func deep() {}
                }
            }

            @Test func free() {
                #expect(true)
            }

            """
        try package.write("Tests/LibTests/LibTests.swift", xctests)
        try package.write("Tests/LibSwiftTests/Swift.swift", swiftTests)
        let changed = ChangedLines(lines: [
            "Tests/LibTests/LibTests.swift": [5, 8, 10], "Tests/LibSwiftTests/Swift.swift": [5, 10, 14, 18], "Sources/Lib/Lib.swift": [1],
        ])
        let found = TouchedTests.find(changed, packageAt: package.path).map(\.key)
        #expect(
            found == [
                "LibSwiftTests.SwiftMath/adds()", "LibSwiftTests.SwiftMath/three(x:_:)", "LibSwiftTests.SwiftMath/deep()",
                "LibSwiftTests.free()/free()", "MathTests/testAdds", "MathTests/testSubtracts",
            ], "\(found)")
    }

    @Test("Shards: about equal recorded durations, new tests spread over the parts, each test in one part")
    func shards() {
        let test = { (name: String) in TestCase(suite: "MathTests", name: name, status: .passed, duration: 0) }
        let tests = ["a", "b", "c", "d", "e", "f", "g"].map(test)
        let durations = ["MathTests/a": 8.0, "MathTests/b": 4, "MathTests/c": 3, "MathTests/d": 1]
        let parts = TestShards.split(tests, count: 2, durations: durations)
        // 8 s against 4 + 3 + 1 s; the new ones one to each part in turn, from the one with fewer tests
        #expect(parts.map { $0.map(\.name) } == [["a", "e", "g"], ["b", "c", "d", "f"]])
        #expect(parts.flatMap { $0 }.map(\.name).sorted() == tests.map(\.name), "each test once")
        #expect(TestShards.split(Array(tests.prefix(2)), count: 4, durations: [:]).count == 2, "no empty part")
        #expect(TestShards.split(tests, count: 1, durations: durations) == [tests])
        let flaky = TestCase(suite: "LibTests.SwiftMath", name: "three(x:) \"Three\"", status: .flaky, duration: 2)
        #expect(TestShards.durations([flaky, flaky, .processFailure("crashed")]) == ["LibTests.SwiftMath/three(x:)": 4])
    }

    @Test("shards: auto splits a suite only where each part carries 5 s of recorded tests, one test a part at most")
    func autoShards() {
        #expect(TestShards.worth(recorded: 0, tests: 200) == 1, "nothing recorded yet: one part")
        #expect(TestShards.worth(recorded: 9.9, tests: 200) == 1, "under two parts' worth")
        #expect(TestShards.worth(recorded: 60, tests: 200) == 12)
        #expect(TestShards.worth(recorded: 60, tests: 3) == 3, "no part without a test")
        #expect(TestShards.worth(recorded: 100_000, tests: 10_000) == TestShardCount.most)
    }

    @Test(
        "A run of XCTest's tests then Swift Testing's ends as the first end that was not a success, but as stopped when fail-fast stopped the second at once"
    )
    func endOfTwoRuns() {
        #expect(PackageBuild.end(xctest: .exited(0), swiftTesting: .exited(1)) == .exited(1))
        #expect(PackageBuild.end(xctest: .exited(1), swiftTesting: .exited(0)) == .exited(1))
        #expect(PackageBuild.end(xctest: .signaled(11), swiftTesting: .exited(1)) == .signaled(11))
        // XCTest's failing test ended its process before the stop reached it; Swift Testing's
        // run was stopped as it started: its tests are to be named not run.
        #expect(PackageBuild.end(xctest: .exited(1), swiftTesting: .stopped) == .stopped)
        #expect(PackageBuild.end(xctest: .stopped, swiftTesting: .exited(0)) == .stopped)
    }
}
