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

/// Re-running failed tests before blaming anyone for them (`test.retries`).
///
/// A test that failed here but passed in the integration this one is compared with is run
/// again, alone, up to `retries` times. One that passes on a re-run is `flaky`: not a failure,
/// so no issue and no mail. One that fails every time is a failure, as without re-runs.
public enum TestRerun {
    /// The failed tests worth running again: those that passed (or were flaky) in `previous`,
    /// and are not quarantined (their failures count for nothing anyway).
    /// A test that is new, or failed before too, is not: re-running it would only cost time.
    /// The failure `swift test` itself stands for when it died without a test failing has no
    /// test to re-run.
    public static func candidates(_ tests: [TestCase], previous: [TestCase]) -> [TestCase] {
        let passedBefore = Set(previous.filter { $0.status == .passed || $0.status == .flaky }.map(\.key))
        return tests.filter { $0.counts && passedBefore.contains($0.key) && !$0.isProcessFailure }
    }

    /// `swift test` arguments that run exactly `tests`: one `--filter` per test (SwiftPM runs the
    /// union), matching XCTest's `Module.Class/test` and Swift Testing's
    /// `Module.Suite/[Nested/]function()/File.swift:line:column`. The bot's own `--filter` and
    /// `--skip` are left out (they would widen or hide the selection); its other arguments stay,
    /// except `--parallel` and `--num-workers` when the run must be `serial`.
    public static func arguments(
        for tests: [TestCase], configuration: String, events: String, botArguments: [String], serial: Bool = false
    ) -> [String] {
        let dropped = serial ? ["--filter", "--skip", "--num-workers"] : ["--filter", "--skip"]
        var kept: [String] = []
        var skipNext = false
        for argument in botArguments {
            if skipNext {
                skipNext = false
            } else if dropped.contains(argument) {
                skipNext = true
            } else if !dropped.contains(where: { argument.hasPrefix($0 + "=") }), !(serial && argument == "--parallel") {
                kept.append(argument)
            }
        }
        return ["test", "--skip-build", "-c", configuration, "--experimental-event-stream-output", events] + kept
            + tests.flatMap { ["--filter", pattern(for: $0)] }
    }

    /// How Swift Testing ends when it found no test to run (`EX_UNAVAILABLE`).
    static let noTestsFound: Int32 = 69

    /// The build and test arguments under which the test binary is not run alone: they move
    /// the products, or make SwiftPM set up more than the binary (sanitizers).
    static let directBlockers = [
        "--scratch-path", "--build-path", "--triple", "--swift-sdk", "--arch", "--sanitize", "--build-system", "--package-path",
    ]

    /// Whether `test` is Swift Testing's: its names are functions (`adds()`); XCTest's are not.
    static func isSwiftTesting(_ test: TestCase) -> Bool { test.name.contains("(") }

    /// XCTest's specifiers (`Module.Class/test`) for `tests` (suite the class, as XCTest's
    /// output names it), from the binary's `--list-tests`: each listed test whose class and
    /// name are one of them.
    static func specifiers(for tests: [TestCase], listed: [String]) -> [String] {
        let wanted = Set(tests.map { "\($0.suite)/\($0.name)" })
        return listed.map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in
            guard let slash = line.firstIndex(of: "/"), !line.contains(" ") else { return false }
            let qualified = line[..<slash]
            let suite = qualified.split(separator: ".").last.map(String.init) ?? String(qualified)
            return wanted.contains("\(suite)/\(line[line.index(after: slash)...])")
        }
    }

    /// A regular expression matching `test`'s specifier and no other test's.
    static func pattern(for test: TestCase) -> String {
        let function = test.name.components(separatedBy: " \"").first ?? test.name
        let escape = NSRegularExpression.escapedPattern(for:)
        // A Swift Testing function outside any suite is its own "suite" (`Module.function()`).
        let specifier = test.suite.hasSuffix(")") ? escape(test.suite) : escape(test.suite) + "/(.*/)?" + escape(function)
        return "(^|\\.)" + specifier + "(/|$)"
    }

    /// `tests` after a re-run: each test that failed and passed in `rerun` is `flaky`, keeping
    /// the first failure's message and place, so the page can say what went wrong once.
    public static func settle(_ tests: [TestCase], rerun: [TestCase]) -> [TestCase] {
        let passed = Dictionary(rerun.filter { $0.status == .passed }.map { ($0.key, $0) }) { first, _ in first }
        return tests.map { test in
            guard test.status == .failed, let again = passed[test.key] else { return test }
            var flaky = test
            flaky.status = .flaky
            // What it measured when it passed is what its baseline is compared with.
            if let measurement = again.measurement { flaky.measurement = measurement }
            return flaky
        }
    }
}
