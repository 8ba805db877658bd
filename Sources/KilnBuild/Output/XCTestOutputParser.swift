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

/// Reads XCTest's console output (`swift test` without `--parallel`) into test cases.
///
/// `Test Case 'Suite.test' started|passed|failed|skipped (N seconds)` lines give each test and its
/// outcome; `file:line: error: Suite.test : message` gives a failure's message and location. A test
/// that started and never ended was running when the process died: it is reported failed, with
/// the crash as its message. `swift test` copies the test process's standard output and error
/// through separate pipes, so the crash's `Fatal error:` line may arrive before the `started`
/// line of the test it ended (seen in 7 of 30 runs on a loaded machine): it is kept apart from
/// the lines around it, and given to the test the process died in.
///
/// With `--parallel`, `swift test` announces every test as `[3/40] Testing Module.Suite/test` and
/// prints the output of failing ones only: announced tests without an outcome of their own passed.
public struct XCTestOutputParser: Sendable {
    public let root: String
    private(set) public var tests: [TestCase] = []
    private var running: (suite: String, name: String)?
    private var failure: (message: String, file: String?, line: Int?)?
    private var announced: [(suite: String, name: String)] = []
    /// What the running test's `measure {}` printed: `measured [Time, seconds] … values: [0.1, …]`.
    private var measured: [Double]?
    /// The running test's `measure {}` varied by more than XCTest allows (10 %), which XCTest on
    /// Linux reports as a failure.
    private var tooNoisy = false
    /// The last `Fatal error: …` line, wherever it landed among the tests' own lines: the words
    /// the process died with (standard error keeps its own order), for the test it died in.
    public private(set) var fatal: String?
    /// Whether a test passed that XCTest failed only for being too noisy (`tooNoisy`).
    public private(set) var excusedNoise = false

    public init(root: String) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// What follows `Test Case '` in a test's `started`, `passed`, `failed` or `skipped` line.
    /// Usually the line begins with it; but `swift test` relays the test process's standard output
    /// and error in chunks, not lines, so a line can begin with a piece of standard error: a
    /// sanitizer's report, written while the test ends, put a stack frame's first half before
    /// `Test Case 'CountTests.testCounts' passed` in 1 of 40 runs. Found after such a piece only
    /// when the rest reads as such a line.
    static func testCaseLine(in line: Substring) -> Substring? {
        let marker = "Test Case '"
        if line.hasPrefix(marker) { return line.dropFirst(marker.count) }
        guard let start = line.range(of: marker, options: .backwards) else { return nil }
        let rest = line[start.upperBound...]
        guard let quote = rest.firstIndex(of: "'") else { return nil }
        let tail = rest[rest.index(after: quote)...]
        let isOutcome = [" passed (", " failed (", " skipped ("].contains { tail.hasPrefix($0) } && tail.hasSuffix(" seconds)")
        return isOutcome || tail.hasPrefix(" started at ") ? rest : nil
    }

    public static func parse(_ output: String, root: String) -> [TestCase] {
        var parser = XCTestOutputParser(root: root)
        for line in output.split(separator: "\n", omittingEmptySubsequences: true) { parser.consume(line) }
        return parser.finish(crash: nil)
    }

    public mutating func consume(_ line: Substring) {
        if line.hasPrefix("["), let testing = line.range(of: "] Testing "), let slash = line.lastIndex(of: "/"),
            slash > testing.upperBound
        {
            let qualified = line[testing.upperBound..<slash]
            let suite = qualified.split(separator: ".").last.map(String.init) ?? String(qualified)
            announced.append((suite, String(line[line.index(after: slash)...])))
            return
        }
        // `/path/PTests.swift:7: Test Case 'PTests.testSpeed' measured [Time, seconds] … values: [0.1, …], …`
        if let marker = line.range(of: "Test Case '"), line[marker.upperBound...].contains("' measured [Time, seconds]") {
            measured = Self.values(in: line[marker.upperBound...])
            return
        }
        if let rest = Self.testCaseLine(in: line) {
            guard let quote = rest.firstIndex(of: "'") else { return }
            let identifier = Self.identifier(rest[..<quote])
            let tail = rest[rest.index(after: quote)...]
            if tail.hasPrefix(" started") {
                running = identifier
                failure = nil
                measured = nil
                tooNoisy = false
                return
            }
            var status: TestStatus
            if tail.hasPrefix(" passed") {
                status = .passed
            } else if tail.hasPrefix(" failed") {
                status = .failed
                // Failed only because its iterations varied by more than 10 %: on a busy machine that
                // says more about the machine than the code. Kiln judges the measurement itself,
                // against the baseline and with a rank test, so the test passed.
                if failure == nil, tooNoisy, measured != nil {
                    status = .passed
                    excusedNoise = true
                }
            } else if tail.hasPrefix(" skipped") {
                status = .skipped
            } else {
                return
            }
            let duration = Self.seconds(in: tail) ?? 0
            tests.append(
                TestCase(
                    suite: identifier.suite, name: identifier.name, status: status, duration: duration,
                    message: status == .passed ? nil : failure?.message, file: failure?.file, line: failure?.line,
                    measurement: measured.map { TestMeasurement(values: $0) }))
            running = nil
            failure = nil
            measured = nil
            return
        }
        // A crash says why before the process dies: keep it for the test that was running then,
        // which is the one without an outcome when the output ends. (Not an assertion's message
        // that quotes one: that is the test's failure, read below.)
        if let words = line.range(of: "Fatal error: "), line.range(of: ": error: ") == nil {
            fatal = "crashed: " + String(line[words.lowerBound...])
            return
        }
        // `/path/File.swift:12: error: Suite.test : message`
        guard let running, let marker = line.range(of: ": error: ") else { return }
        let location = line[..<marker.lowerBound]
        let rest = line[marker.upperBound...]
        var message = rest.range(of: " : ").map { String(rest[$0.upperBound...]) } ?? String(rest)
        // `XCTAssertEqual failed: ("1") is not equal to ("2") - its message`: without a message of
        // its own, XCTest leaves the dash.
        while message.last?.isWhitespace == true { message.removeLast() }
        if message.hasSuffix(" -") { message.removeLast(2) }
        if message.contains("relative standard deviation of the measurements is"), message.contains("higher than the max allowed") {
            tooNoisy = true
            return
        }
        guard failure == nil else { return }
        var file: String?
        var lineNumber: Int?
        if let colon = location.lastIndex(of: ":"), let number = Int(location[location.index(after: colon)...]) {
            let path = String(location[..<colon])
            file = path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
            lineNumber = number
        }
        _ = running
        failure = (message, file, lineNumber)
    }

    /// How the test process ended, as Kiln judges it: XCTest exits 1 for a `measure {}` that only
    /// varied more than it allows, which Kiln excuses (`excusedNoise`); with no test failed, that
    /// run succeeded, and no failure of `swift test` itself is to be recorded.
    public static func settle(_ end: ProcessEnd, tests: [TestCase], excusedNoise: Bool) -> ProcessEnd {
        end == .exited(1) && excusedNoise && !tests.contains { $0.status == .failed } ? .exited(0) : end
    }

    /// The tests read so far, plus the one that was running if the process died in it (not when
    /// it was `stopped` on purpose, at another test's failure: that one did not end).
    public func finish(crash: String?, stopped: Bool = false) -> [TestCase] {
        var result = tests
        if let running, !stopped {
            let message = failure?.message ?? fatal ?? crash ?? "the test process ended while this test was running"
            result.append(
                TestCase(
                    suite: running.suite, name: running.name, status: .failed, duration: 0, message: message, file: failure?.file, line: failure?.line
                ))
        }
        let reported = Set(result.map { "\($0.suite)/\($0.name)" })
        for test in announced where !reported.contains("\(test.suite)/\(test.name)") {
            result.append(TestCase(suite: test.suite, name: test.name, status: .passed, duration: 0))
        }
        return result
    }

    /// `Suite.test` (Linux) or `-[Module.Suite test]` (Darwin).
    static func identifier(_ text: Substring) -> (suite: String, name: String) {
        var text = text
        if text.hasPrefix("-["), text.hasSuffix("]") {
            text = text.dropFirst(2).dropLast()
            let parts = text.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { return (String(parts[0]), String(parts[1])) }
        }
        guard let dot = text.lastIndex(of: ".") else { return ("", String(text)) }
        return (String(text[..<dot]), String(text[text.index(after: dot)...]))
    }

    /// `values: [0.064259, 0.041, …]` of a `measured` line.
    static func values(in text: Substring) -> [Double]? {
        guard let start = text.range(of: "values: ["), let end = text[start.upperBound...].firstIndex(of: "]") else { return nil }
        let values = text[start.upperBound..<end].split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return values.isEmpty ? nil : values
    }

    /// `(0.004 seconds)`.
    static func seconds(in text: Substring) -> Double? {
        guard let open = text.firstIndex(of: "("), let end = text.range(of: " seconds)") else { return nil }
        return Double(text[text.index(after: open)..<end.lowerBound])
    }
}
