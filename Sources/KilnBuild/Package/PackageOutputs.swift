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

/// What `swift build` left: its diagnostics and how it ended.
public struct BuildOutput: Sendable {
    public var diagnostics: [Diagnostic]
    public var end: ProcessEnd
    /// The serialized diagnostics (`.build/<configuration>/<Module>.build/<File>.dia`) as the
    /// build found them, with when each was written: one it wrote again was recompiled.
    var diagnosticsBefore: [String: Date]

    public var succeeded: Bool { end.succeeded }

    /// A build that did not run because of `errors` (a dependency that cannot be had).
    public static func failed(_ errors: [Diagnostic]) -> BuildOutput {
        BuildOutput(diagnostics: errors, end: .exited(1), diagnosticsBefore: [:])
    }
}

/// What `swift test` left: every test of XCTest and Swift Testing, the coverage, and what a
/// sanitizer reported (`--sanitize=`).
public struct TestOutput: Sendable {
    public var tests: [TestCase]
    public var coverage: Double?
    /// With coverage on: each executable line of the package's own sources and how often it ran.
    public var lines: LineCoverage?
    public var sanitizerReports: [SanitizerReport] = []
    public var end: ProcessEnd
    /// The parts the tests ran in, when they ran in shards (`test.shards`).
    public var shards: [ShardRun] = []

    public init(tests: [TestCase] = [], coverage: Double? = nil, end: ProcessEnd = .exited(0)) {
        self.tests = tests
        self.coverage = coverage
        self.end = end
    }

    /// Adds a part's results to these (`test.shards`): its tests, sanitizer reports and runs,
    /// and its end when it is the first that was not a success.
    public mutating func add(_ tests: [TestCase], sanitizerReports: [SanitizerReport] = [], end: ProcessEnd, runs: [ShardRun]) {
        self.tests += tests
        self.sanitizerReports += sanitizerReports
        if self.end.succeeded, !end.succeeded { self.end = end }
        shards += runs
    }
}

/// What the `analyze` step found: `swift format lint`'s findings, with how it ended.
public struct AnalysisOutput: Sendable {
    /// Located findings (`file:line:col: warning: [Rule] message`), relative to the repository.
    public var findings: [Diagnostic]
    /// Why the analysis could not be done (the linter missing, crashed, or unable to lint at
    /// all); nil when it ran to its end.
    public var failure: String?
    public var end: ProcessEnd
}
