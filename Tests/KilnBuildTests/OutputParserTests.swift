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
import Testing

@Suite("Reading build and test output")
struct OutputParserTests {
    @Test("Compiler diagnostics: located, relative, notes folded, snippets skipped, repeats counted once")
    func diagnostics() {
        let output = """
            [1/4] Compiling Lib Lib.swift
            /work/app/Sources/Lib/Lib.swift:2:9: warning: initialization of immutable value 'unused' was never used
            1 | public func add(_ a: Int, _ b: Int) -> Int {
            2 |     let unused = 3
              |         `- warning: initialization of immutable value 'unused' was never used
            /work/app/Sources/Lib/Lib.swift:7:5: error: cannot find 'foo' in scope
            /work/app/Sources/Lib/Other.swift:3:10: note: did you mean 'food'?
            [2/4] Compiling LibTests LibTests.swift
            /work/app/Sources/Lib/Lib.swift:2:9: warning: initialization of immutable value 'unused' was never used
            /usr/include/stdio.h:12: warning: something in a system header
            error: link command failed with exit code 1 (use -v to see invocation)
            note: this is a note with nothing before it
            Building for debugging... 50% complete: error: nothing, just chatter
            error: fatalError
            """
        let diagnostics = DiagnosticParser.parse(output, root: "/work/app/")
        #expect(
            diagnostics == [
                Diagnostic(
                    severity: .warning, file: "Sources/Lib/Lib.swift", line: 2, column: 9,
                    message: "initialization of immutable value 'unused' was never used"),
                Diagnostic(
                    severity: .error, file: "Sources/Lib/Lib.swift", line: 7, column: 5, message: "cannot find 'foo' in scope",
                    notes: ["did you mean 'food'?"]),
                Diagnostic(severity: .warning, file: "/usr/include/stdio.h", line: 12, column: nil, message: "something in a system header"),
                Diagnostic(
                    severity: .error, file: nil, line: nil, column: nil, message: "link command failed with exit code 1 (use -v to see invocation)"),
                Diagnostic(severity: .error, file: nil, line: nil, column: nil, message: "fatalError"),
            ])
    }

    @Test("XCTest console output: passed, failed with message and location, skipped, durations")
    func xctest() {
        let output = """
            Test Suite 'All tests' started at 2026-11-22 01:45:41.946
            Test Case 'MathTests.testAdds' started at 2026-11-22 01:45:41.947
            Test Case 'MathTests.testAdds' passed (0.004 seconds)
            Test Case 'MathTests.testFails' started at 2026-11-22 01:45:41.952
            /work/app/Tests/LibTests/XCTests.swift:5: error: MathTests.testFails : XCTAssertEqual failed: ("3") is not equal to ("4") - one plus two
            Test Case 'MathTests.testFails' failed (0.25 seconds)
            Test Case 'MathTests.testSkipped' started at 2026-11-22 01:45:41.952
            /work/app/Tests/LibTests/XCTests.swift:6: MathTests.testSkipped : Test skipped - not today
            Test Case 'MathTests.testSkipped' skipped (0.0 seconds)
            """
        #expect(
            XCTestOutputParser.parse(output, root: "/work/app") == [
                TestCase(suite: "MathTests", name: "testAdds", status: .passed, duration: 0.004),
                TestCase(
                    suite: "MathTests", name: "testFails", status: .failed, duration: 0.25,
                    message: "XCTAssertEqual failed: (\"3\") is not equal to (\"4\") - one plus two", file: "Tests/LibTests/XCTests.swift", line: 5),
                TestCase(suite: "MathTests", name: "testSkipped", status: .skipped, duration: 0),
            ])
    }

    @Test("XCTest's measure {}: each measured value in seconds, on its test")
    func measured() {
        let output = """
            Test Case 'PTests.testSpeed' started at 2026-11-22 01:45:41.947
            /work/app/Tests/LibTests/PTests.swift:5: Test Case 'PTests.testSpeed' measured [Time, seconds] average: 0.046, relative standard deviation: 24.436%, values: [0.064259, 0.041, 0.0402], performanceMetricID:com.apple.XCTPerformanceMetric_WallClockTime, baselineName: "", baselineAverage: , maxPercentRegression: 10.000%
            Test Case 'PTests.testSpeed' passed (0.52 seconds)
            Test Case 'PTests.testPlain' started at 2026-11-22 01:45:41.947
            Test Case 'PTests.testPlain' passed (0.001 seconds)
            """
        let tests = XCTestOutputParser.parse(output, root: "/work/app")
        #expect(tests.map(\.measurement?.values) == [[0.064259, 0.041, 0.0402], nil])
    }

    @Test(
        "A measure {} that XCTest failed only for varying over 10 % passed, with its values; one with a real failure did not, its message without the dash XCTest leaves"
    )
    func tooNoisy() {
        let noisy =
            "error: PTests.testSpeed : failed: The relative standard deviation of the measurements is 105.404% which is higher than the max allowed of 10.000%."
        let output = """
            Test Case 'PTests.testSpeed' started at 2026-11-22 01:45:41.947
            /work/app/Tests/LibTests/PTests.swift:5: Test Case 'PTests.testSpeed' measured [Time, seconds] average: 0.046, relative standard deviation: 105.404%, values: [0.1, 0.01, 0.01], performanceMetricID:com.apple.XCTPerformanceMetric_WallClockTime
            /work/app/Tests/LibTests/PTests.swift:5: \(noisy)
            Test Case 'PTests.testSpeed' failed (0.52 seconds)
            Test Case 'PTests.testWrong' started at 2026-11-22 01:45:42.947
            /work/app/Tests/LibTests/PTests.swift:9: Test Case 'PTests.testWrong' measured [Time, seconds] average: 0.046, relative standard deviation: 105.404%, values: [0.1, 0.01, 0.01], performanceMetricID:com.apple.XCTPerformanceMetric_WallClockTime
            /work/app/Tests/LibTests/PTests.swift:9: \(noisy.replacingOccurrences(of: "testSpeed", with: "testWrong"))
            /work/app/Tests/LibTests/PTests.swift:10: error: PTests.testWrong : XCTAssertEqual failed: ("1") is not equal to ("2") -
            Test Case 'PTests.testWrong' failed (0.52 seconds)
            """
        let tests = XCTestOutputParser.parse(output, root: "/work/app")
        #expect(tests.map(\.status) == [.passed, .failed])
        #expect(tests.first?.message == nil && tests.first?.measurement?.values == [0.1, 0.01, 0.01])
        #expect(tests.last?.message == "XCTAssertEqual failed: (\"1\") is not equal to (\"2\")" && tests.last?.line == 10)

        // XCTest exits 1 for the noisy one: alone, that run succeeded; beside a real failure, not.
        var parser = XCTestOutputParser(root: "/work/app")
        for line in output.split(separator: "\n").prefix(4) { parser.consume(line) }
        let excused = parser.finish(crash: nil)
        #expect(parser.excusedNoise && excused.map(\.status) == [.passed])
        #expect(XCTestOutputParser.settle(.exited(1), tests: excused, excusedNoise: true) == .exited(0))
        #expect(XCTestOutputParser.settle(.exited(1), tests: tests, excusedNoise: true) == .exited(1))
        #expect(XCTestOutputParser.settle(.exited(1), tests: excused, excusedNoise: false) == .exited(1))
        #expect(XCTestOutputParser.settle(.signaled(11), tests: excused, excusedNoise: true) == .signaled(11))
    }

    @Test("XCTest with --parallel: announced tests pass unless their output says otherwise")
    func xctestParallel() {
        let output = """
            [1/3] Testing LibTests.MathTests/testAdds
            [2/3] Testing LibTests.MathTests/testFails
            [3/3] Testing LibTests.MathTests/testOther
            Test Suite 'Selected tests' started at 2026-11-22 02:12:22.114
            Test Case 'MathTests.testFails' started at 2026-11-22 02:12:22.116
            /work/app/Tests/LibTests/XCTests.swift:5: error: MathTests.testFails : XCTAssertEqual failed
            Test Case 'MathTests.testFails' failed (0.002 seconds)
            """
        #expect(
            XCTestOutputParser.parse(output, root: "/work/app") == [
                TestCase(
                    suite: "MathTests", name: "testFails", status: .failed, duration: 0.002, message: "XCTAssertEqual failed",
                    file: "Tests/LibTests/XCTests.swift", line: 5),
                TestCase(suite: "MathTests", name: "testAdds", status: .passed, duration: 0),
                TestCase(suite: "MathTests", name: "testOther", status: .passed, duration: 0),
            ])
    }

    @Test(
        "XCTest: an outcome after a piece of standard error on its line (swift test relays chunks) is still the test's; a message quoting one is not")
    func xctestAfterStandardError() {
        // As `swift test` gave it in 1 of 40 runs of a package with a data race under TSan.
        let frame = "    #5 $s8LibTests05CountB0C021RacyPackageDiscoveredB0E05__allb2__cB033_6175B9E93830F650F64DD5B6524BB561LLSaySS_y"
        let output = """
            Test Case 'CountTests.testCounts' started at 2026-11-27 14:07:03.031
            \(frame)Test Case 'CountTests.testCounts' passed (0.094 seconds)
            Test Case 'CountTests.testQuotes' started at 2026-11-27 14:07:03.200
            /work/app/Tests/LibTests/LibTests.swift:9: error: CountTests.testQuotes : XCTAssertEqual failed: ("Test Case 'A.b' passed (1.0 seconds)") is not equal to ("")
            Test Case 'CountTests.testQuotes' failed (0.001 seconds)
            """
        #expect(
            XCTestOutputParser.parse(output, root: "/work/app") == [
                TestCase(suite: "CountTests", name: "testCounts", status: .passed, duration: 0.094),
                TestCase(
                    suite: "CountTests", name: "testQuotes", status: .failed, duration: 0.001,
                    message: "XCTAssertEqual failed: (\"Test Case 'A.b' passed (1.0 seconds)\") is not equal to (\"\")",
                    file: "Tests/LibTests/LibTests.swift", line: 9),
            ])
    }

    @Test("XCTest: a test running when the process crashed is failed, with the crash's own words")
    func xctestCrash() {
        var parser = XCTestOutputParser(root: "/work/app")
        for line in [
            "Test Case 'CrashTests.testOne' started at 2026-11-22 01:45:41.947", "Test Case 'CrashTests.testOne' passed (0.001 seconds)",
            "Test Case 'CrashTests.testCrashes' started at 2026-11-22 01:45:41.947", "Fatal error: Unexpectedly found nil",
        ] { parser.consume(Substring(line)) }
        #expect(
            parser.finish(crash: "the test process crashed (signal 4, illegal instruction)") == [
                TestCase(suite: "CrashTests", name: "testOne", status: .passed, duration: 0.001),
                TestCase(
                    suite: "CrashTests", name: "testCrashes", status: .failed, duration: 0, message: "crashed: Fatal error: Unexpectedly found nil"),
            ])
    }

    @Test(
        "XCTest: the crash's words reach the test it ended when swift test delivers them before that test's start, or inside the test before it",
        arguments: [
            [
                "Fatal error: Index out of range", "Test Case 'CrashTests.testOne' started at 2026-11-22 01:45:41.947",
                "Test Case 'CrashTests.testOne' passed (0.001 seconds)", "Test Case 'CrashTests.testCrashes' started at 2026-11-22 01:45:41.948",
            ],
            [
                "Test Case 'CrashTests.testOne' started at 2026-11-22 01:45:41.947", "Fatal error: Index out of range",
                "Test Case 'CrashTests.testOne' passed (0.001 seconds)", "Test Case 'CrashTests.testCrashes' started at 2026-11-22 01:45:41.948",
            ],
        ])
    func xctestCrashReordered(lines: [String]) {
        var parser = XCTestOutputParser(root: "/work/app")
        for line in lines { parser.consume(Substring(line)) }
        #expect(
            parser.finish(crash: "the test process ended: exited with status 1") == [
                TestCase(suite: "CrashTests", name: "testOne", status: .passed, duration: 0.001),
                TestCase(suite: "CrashTests", name: "testCrashes", status: .failed, duration: 0, message: "crashed: Fatal error: Index out of range"),
            ])
    }

    @Test("XCTest: an assertion whose message quotes a fatal error is that test's failure, not a crash")
    func xctestQuotedFatal() {
        let output = """
            Test Case 'LogTests.testQuotes' started at 2026-11-22 01:45:41.947
            /work/app/Tests/LibTests/LogTests.swift:9: error: LogTests.testQuotes : XCTAssertEqual failed: ("Fatal error: disk") is not equal to ("ok")
            Test Case 'LogTests.testQuotes' failed (0.002 seconds)
            Test Case 'LogTests.testCrashes' started at 2026-11-22 01:45:41.949
            """
        #expect(
            XCTestOutputParser.parse(output, root: "/work/app") == [
                TestCase(
                    suite: "LogTests", name: "testQuotes", status: .failed, duration: 0.002,
                    message: #"XCTAssertEqual failed: ("Fatal error: disk") is not equal to ("ok")"#,
                    file: "Tests/LibTests/LogTests.swift", line: 9),
                TestCase(
                    suite: "LogTests", name: "testCrashes", status: .failed, duration: 0,
                    message: "the test process ended while this test was running"),
            ])
    }

    static let events = """
        {"kind":"test","payload":{"id":"LibTests.SwiftMath","kind":"suite","name":"SwiftMath","sourceLocation":{"_filePath":"\\/tmp\\/fx\\/Tests\\/LibTests\\/SwiftTests.swift","column":2,"fileID":"LibTests\\/SwiftTests.swift","line":3}},"version":0}
        {"kind":"test","payload":{"id":"LibTests.SwiftMath\\/adds()\\/SwiftTests.swift:4:6","isParameterized":false,"kind":"function","name":"adds()","sourceLocation":{"_filePath":"\\/tmp\\/fx\\/Tests\\/LibTests\\/SwiftTests.swift","column":6,"fileID":"LibTests\\/SwiftTests.swift","line":4}},"version":0}
        {"kind":"test","payload":{"displayName":"Adds badly","id":"LibTests.SwiftMath\\/addsBadly()\\/SwiftTests.swift:5:6","isParameterized":false,"kind":"function","name":"addsBadly()","sourceLocation":{"_filePath":"\\/tmp\\/fx\\/Tests\\/LibTests\\/SwiftTests.swift","column":6,"fileID":"LibTests\\/SwiftTests.swift","line":5}},"version":0}
        {"kind":"event","payload":{"instant":{"absolute":3780.955845114,"since1970":1795311941.9668236},"kind":"runStarted","messages":[{"symbol":"default","text":"Test run started."},{"symbol":"details","text":"Testing Library Version: 6.3.1 (937120cbc281cf2)"},{"symbol":"details","text":"Target Platform: x86_64-unknown-linux-gnu"}]},"version":0}
        {"kind":"event","payload":{"instant":{"absolute":3780.95619053,"since1970":1795311941.967169},"kind":"testStarted","messages":[{"symbol":"default","text":"Suite SwiftMath started."}],"testID":"LibTests.SwiftMath"},"version":0}
        {"kind":"event","payload":{"instant":{"absolute":3780.956439424,"since1970":1795311941.967418},"kind":"testStarted","messages":[{"symbol":"default","text":"Test adds() started."}],"testID":"LibTests.SwiftMath\\/adds()\\/SwiftTests.swift:4:6"},"version":0}
        {"kind":"event","payload":{"instant":{"absolute":3780.956585713,"since1970":1795311941.9675643},"kind":"testStarted","messages":[{"symbol":"default","text":"Test \\"Adds badly\\" started."}],"testID":"LibTests.SwiftMath\\/addsBadly()\\/SwiftTests.swift:5:6"},"version":0}
        {"kind":"event","payload":{"instant":{"absolute":3780.956676472,"since1970":1795311941.967655},"kind":"testEnded","messages":[{"symbol":"pass","text":"Test adds() passed after 0.001 seconds."}],"testID":"LibTests.SwiftMath\\/adds()\\/SwiftTests.swift:4:6"},"version":0}
        {"kind":"event","payload":{"_comments":[],"_sourceLocation":{"_filePath":"/tmp/fx/Tests/LibTests/SwiftTests.swift","column":44,"fileID":"LibTests/SwiftTests.swift","line":5},"instant":{"absolute":3780.957314813,"since1970":1795311941.9682937},"issue":{"_backtrace":[],"isKnown":false,"sourceLocation":{"_filePath":"/tmp/fx/Tests/LibTests/SwiftTests.swift","column":44,"fileID":"LibTests/SwiftTests.swift","line":5}},"kind":"issueRecorded","messages":[{"symbol":"fail","text":"Expectation failed: (add(2, 2) \\u2192 4) == 5"}],"testID":"LibTests.SwiftMath/addsBadly()/SwiftTests.swift:5:6"},"version":0}
        {"kind":"event","payload":{"instant":{"absolute":3780.957660345,"since1970":1795311941.968639},"kind":"testEnded","messages":[{"symbol":"fail","text":"Test \\"Adds badly\\" failed after 0.001 seconds with 1 issue."}],"testID":"LibTests.SwiftMath\\/addsBadly()\\/SwiftTests.swift:5:6"},"version":0}
        {"kind":"event","payload":{"instant":{"absolute":3780.957781826,"since1970":1795311941.9687605},"kind":"testEnded","messages":[{"symbol":"fail","text":"Suite SwiftMath failed after 0.001 seconds with 1 issue."}],"testID":"LibTests.SwiftMath"},"version":0}
        {"kind":"event","payload":{"instant":{"absolute":3780.957865542,"since1970":1795311941.9688442},"kind":"runEnded","messages":[{"symbol":"fail","text":"Test run with 2 tests in 1 suite failed after 0.002 seconds with 1 issue."}]},"version":0}
        """

    @Test("Swift Testing's event stream: suites, display names, issues with locations")
    func swiftTesting() throws {
        let tests = SwiftTestingEventParser.parse(Self.events, root: "/tmp/fx")
        #expect(tests.count == 2)
        #expect(tests.first?.suite == "LibTests.SwiftMath")
        #expect(tests.first?.name == "adds()")
        #expect(tests.first?.status == .passed)
        let failed = try #require(tests.last)
        #expect(failed.name == "addsBadly() \"Adds badly\"")
        #expect(failed.status == .failed)
        #expect(failed.message == "Expectation failed: (add(2, 2) → 4) == 5")
        #expect(failed.file == "Tests/LibTests/SwiftTests.swift" && failed.line == 5)
        #expect(failed.duration > 0 && failed.duration < 1)
    }

    @Test("Swift Testing: a stream cut short by a crash still yields the tests that ran")
    func swiftTestingCrash() {
        let lines = Self.events.split(separator: "\n")
        // Keep the definitions, the start of both tests and the end of the first only.
        let cut = lines.prefix(8).joined(separator: "\n")
        var parser = SwiftTestingEventParser(root: "/tmp/fx")
        for line in cut.split(separator: "\n") { parser.consume(line) }
        let tests = parser.finish(crash: "the test process crashed (signal 11)")
        #expect(tests.map(\.status) == [.passed, .failed])
        #expect(tests.last?.message == "the test process crashed (signal 11)")
    }

    @Test("The API check's report: breaks by module, and which modules SwiftPM compared at all")
    func apiBreakageReport() {
        var report = APIBreakageReport()
        for line in [
            "Build complete! (1.35s)", "", "2 breaking changes detected in Lib:", "  💔 API breakage: func extra() has been removed",
            "  💔 API breakage: var x has been removed", "No breaking changes detected in Core",
            "Skipping New because it does not exist in the baseline",
        ] { report.consume(Substring(line)) }
        #expect(report.breaks.map(\.module) == ["Lib", "Lib"] && report.breaks.first?.change == "func extra() has been removed")
        #expect(report.modules == ["Lib", "Core", "New"])
        var silent = APIBreakageReport()
        for line in ["Building for debugging...", "Build complete! (0.06s)"] { silent.consume(Substring(line)) }
        #expect(silent.modules.isEmpty && silent.breaks.isEmpty, "a package without library products: SwiftPM compared nothing")
    }

    @Test("Sanitizer reports: the first frame in the repository's sources with a line places each; addresses and the toolchain's frames are left out")
    func sanitizerReports() throws {
        let output = """
            Test Case 'RaceTests.testCounts' started at 2026-11-26 04:10:18.791
            ==================
            WARNING: ThreadSanitizer: Swift access race (pid=23)
              Modifying access of Swift variable at 0x720800000b70 by main thread:
                #0 $s3Lib9racyCountSiyF /work/app/Sources/Lib/Lib.swift (RacyPackageTests.xctest+0x10546b) (BuildId: 8efd4e80)
                #1 $s8LibTests04RaceB0C10testCountsyyFSiyKXEfu_ /<compiler-generated> (RacyPackageTests.xctest+0x10558d) (BuildId: 8efd4e80)
                #9 main /work/app/.build/x86_64-unknown-linux-gnu/debug/RacyPackageTests.derived/runner.swift (RacyPackageTests.xctest+0x1) (BuildId: 8e)

              Previous write of size 1 at 0x720800000b70 by thread T5:
                #0 $s3Lib9racyCountSiyFyyYbcfU_ /work/app/Sources/Lib/Lib.swift:6:56 (RacyPackageTests.xctest+0x104ea0) (BuildId: 8efd4e80)
                #3 _____interceptor_dispatch_group_async_block_invoke /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_libdispatch.cpp:361:5 (x)

              Location is heap block of size 24 at 0x720800000b60 allocated by main thread:
                #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (RacyPackageTests.xctest+0x824e0)

            SUMMARY: ThreadSanitizer: Swift access race /work/app/Sources/Lib/Lib.swift in $s3Lib9racyCountSiyF
            ==================
            Test Case 'RaceTests.testCounts' passed (0.33 seconds)
            ==================
            ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000014 at pc 0x55 bp 0x7ff sp 0x7fe
            READ of size 4 at 0x602000000014 thread T0
                #0 0x55 in $s3Lib4peekSiyF /work/app/Sources/Lib/Buffer.swift:12:20
            SUMMARY: AddressSanitizer: heap-buffer-overflow /work/app/Sources/Lib/Buffer.swift:12:20 in $s3Lib4peekSiyF
            /work/app/Sources/CLib/shim.c:3:12: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'
            ThreadSanitizer: reported 1 warnings
            """
        var parser = SanitizerReportParser(root: "/work/app")
        for line in output.split(separator: "\n") { parser.consume(line) }
        let reports = parser.reports
        #expect(reports.count == 3, "\(reports)")
        #expect(
            reports.first?.summary == "ThreadSanitizer: Swift access race"
                && reports.first?.symbol == "$s3Lib9racyCountSiyF,$s3Lib9racyCountSiyFyyYbcfU_")
        #expect(reports.first?.file == "Sources/Lib/Lib.swift" && reports.first?.line == 6, "the closure's frame has the line")
        #expect(
            reports.first?.message
                == "ThreadSanitizer: Swift access race (Modifying access of Swift variable by main thread; previous write of size 1 by thread T5)")
        #expect(reports.dropFirst().first?.summary == "AddressSanitizer: heap-buffer-overflow")
        #expect(reports.dropFirst().first?.file == "Sources/Lib/Buffer.swift" && reports.dropFirst().first?.line == 12)
        #expect(reports.last?.summary == "UndefinedBehaviorSanitizer: signed integer overflow: 2147483647 + 1 cannot be represented in type 'int'")
        #expect(reports.last?.file == "Sources/CLib/shim.c" && reports.last?.line == 3)

        // The same race with its accesses seen the other way round is the same report.
        let swapped = """
            WARNING: ThreadSanitizer: Swift access race (pid=41)
              Modifying access of Swift variable at 0x720800000c10 by thread T3:
                #0 $s3Lib9racyCountSiyFyyYbcfU_ /work/app/Sources/Lib/Lib.swift:6:56 (RacyPackageTests.xctest+0x104ea0)
              Previous write of size 8 at 0x720800000c10 by main thread:
                #0 $s3Lib9racyCountSiyF /work/app/Sources/Lib/Lib.swift (RacyPackageTests.xctest+0x10546b)
                #1 $s8LibTests04RaceB0C10testCountsyyF /work/app/Tests/LibTests/LibTests.swift:5:44 (RacyPackageTests.xctest+0x1)
            SUMMARY: ThreadSanitizer: Swift access race /work/app/Sources/Lib/Lib.swift:6:56 in $s3Lib9racyCountSiyFyyYbcfU_
            """
        var again = SanitizerReportParser(root: "/work/app")
        for line in swapped.split(separator: "\n") { again.consume(line) }
        #expect(again.reports.first?.file == "Sources/Lib/Lib.swift" && again.reports.first?.line == 6, "\(again.reports)")
        #expect(again.reports.first?.symbol == reports.first?.symbol, "the same two functions: the same race")

        // The same race as TSan also reports it now and then (3 of 41 runs): two plain writes, a
        // `data race`. Its message says so; its issue is the same one.
        let plain = """
            WARNING: ThreadSanitizer: data race (pid=22302)
              Write of size 8 at 0x720800000b70 by thread T5:
                #0 $s3Lib9racyCountSiyFyyYbcfU_ /work/app/Sources/Lib/Lib.swift:6:56 (RacyPackageTests.xctest+0x104ea0)
              Previous write of size 8 at 0x720800000b70 by main thread:
                #0 $s3Lib9racyCountSiyF /work/app/Sources/Lib/Lib.swift:7:11 (RacyPackageTests.xctest+0x1054a6)
            SUMMARY: ThreadSanitizer: data race /work/app/Sources/Lib/Lib.swift:6:56 in $s3Lib9racyCountSiyFyyYbcfU_
            """
        var third = SanitizerReportParser(root: "/work/app")
        for line in plain.split(separator: "\n") { third.consume(line) }
        let race = try #require(third.reports.first)
        #expect(race.message == "ThreadSanitizer: data race (Write of size 8 by thread T5; previous write of size 8 by main thread)")
        let issue = { (report: SanitizerReport) in IssueBuilder.issues(diagnostics: [], tests: [], sanitizerReports: [report]).first?.fingerprint }
        let access = try #require(reports.first)
        #expect(issue(race) != nil && issue(race) == issue(access), "one race, one issue, however TSan names it")

        let passed = [TestCase(suite: "RaceTests", name: "testCounts", status: .passed, duration: 0.3)]
        #expect(SanitizerReportParser.settle(.exited(1), tests: passed, reports: reports) == .exited(0), "the reports are why it exited 1")
        #expect(SanitizerReportParser.settle(.exited(1), tests: passed, reports: []) == .exited(1))
        #expect(SanitizerReportParser.settle(.signaled(11), tests: passed, reports: reports) == .signaled(11), "a crash is still a crash")
    }
}
