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

import KilnCore

/// Counts the tests that ended and failed from the output of `swift test` as it streams, so that a
/// failure is known when its line is printed, not when the suite ends: XCTest's outcome lines as
/// `XCTestOutputParser` judges them, and Swift Testing's console lines (`✔ Test … passed after`,
/// `✘ Test … failed after`); its event stream, which says more, is read when the process ends.
public struct TestTally: Sendable {
    private var xctestEnded = 0
    /// Swift Testing's failures told on the console so far: its event stream records each a moment later.
    public private(set) var swiftTestingFailed = 0

    public init() {}

    /// Reads one line, after `parser` consumed it: the tests it told of ending, and of failing.
    public mutating func consume(_ line: Substring, parser: XCTestOutputParser) -> (ended: Int, failed: Int) {
        if parser.tests.count > xctestEnded {
            let ended = parser.tests[xctestEnded...]
            xctestEnded = parser.tests.count
            return (ended.count, ended.filter { $0.status == .failed }.count)
        }
        switch Self.swiftTestingOutcome(line) {
        case .passed?: return (1, 0)
        case .failed?:
            swiftTestingFailed += 1
            return (1, 1)
        default: return (0, 0)
        }
    }

    /// `✔ Test adds() passed after 0.001 seconds.` or `✘ Test "Adds again" failed after …`: a
    /// test's (or a parameterized test's) end, not a suite's, a run's or one argument's.
    static func swiftTestingOutcome(_ line: Substring) -> TestStatus? {
        let line = line.contains("\u{1B}") ? Substring(withoutColors(line)) : line
        let status: TestStatus
        if line.hasPrefix("✔ Test "), line.contains(" passed after ") {
            status = .passed
        } else if line.hasPrefix("✘ Test "), line.contains(" failed after ") {
            status = .failed
        } else {
            return nil
        }
        let rest = line.dropFirst(2)
        return rest.hasPrefix("Test run with ") || rest.hasPrefix("Test case passing ") ? nil : status
    }

    /// `line` without its terminal colours (`ESC [ … m`), where the console was taken for a terminal.
    static func withoutColors(_ line: Substring) -> String {
        var result = ""
        var rest = line[...]
        while let escape = rest.firstIndex(of: "\u{1B}") {
            result += rest[..<escape]
            rest = rest[rest.index(after: escape)...]
            guard rest.first == "[" else { continue }
            guard let end = rest.firstIndex(where: { $0.isLetter }) else { return result }
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }
}
