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

/// A kind of issue. Each kind carries everything the rest of Kiln decides about it (its names in
/// bot files and the API, the result it gives an integration, whether it is always counted), so
/// that summaries, pages, mails, commit statuses and `kiln run` iterate over kinds instead of
/// naming them. What a person reads of it (its noun, its words in a commit status) is
/// KilnPresentation's `IssueType+Words.swift`. Adding a kind is its case here, its words there,
/// and its producer.
public enum IssueType: String, CaseIterable, Codable, Sendable, Hashable {
    case error
    case warning
    case testFailure = "test-failure"
    /// A finding of the `analyze` step (`swift format lint`, an API break).
    case analyzerWarning = "analyzer-warning"
    /// A measurement (`measure {}`) slower than its baseline on the same host.
    case performanceRegression = "performance-regression"
    /// A Thread, Address or Undefined Behavior Sanitizer's report (a data race, a heap overflow).
    case sanitizer

    /// What is decided of one kind; the one table that lists them.
    struct Traits {
        /// Bot files' plural (`issues: [errors, warnings, test-failures]`).
        var plural: String
        /// Its count's name in the API's `summary` (`errors`, `testFailures`).
        var summaryKey: String
        /// The result an integration with an issue of this kind has at best.
        var result: IntegrationResult
        /// Counted on every page and mail even at zero; the others are shown when present.
        var alwaysCounted: Bool
        /// A new issue of this kind is one a bisection looks for: something broke, not a warning.
        var breaks: Bool
        /// Counted from the failed tests (quarantined ones too) and written "of N tests".
        var countsTests = false
    }

    var traits: Traits {
        switch self {
        case .error:
            Traits(
                plural: "errors", summaryKey: "errors", result: .buildErrors, alwaysCounted: true,
                breaks: true)
        case .warning:
            Traits(
                plural: "warnings", summaryKey: "warnings", result: .warnings, alwaysCounted: true,
                breaks: false)
        case .testFailure:
            Traits(
                plural: "test-failures", summaryKey: "testFailures", result: .testFailures,
                alwaysCounted: true, breaks: true, countsTests: true)
        case .analyzerWarning:
            Traits(
                plural: "analyzer-warnings", summaryKey: "analyzerWarnings",
                result: .analyzerWarnings, alwaysCounted: false, breaks: false)
        case .performanceRegression:
            Traits(
                plural: "performance-regressions", summaryKey: "performanceRegressions", result: .testFailures, alwaysCounted: false, breaks: true)
        case .sanitizer:
            Traits(
                plural: "sanitizer-reports", summaryKey: "sanitizerReports",
                result: .testFailures, alwaysCounted: false, breaks: true)
        }
    }

    /// The plural spelling used in bot files (`issues: [errors, warnings, test-failures]`).
    public var pluralName: String { traits.plural }

    /// Its count's name in the API's `summary` (`errors`, `testFailures`).
    public var summaryKey: String { traits.summaryKey }

    /// The result an integration with an issue of this kind has at best (a performance
    /// regression's may be lowered to `warnings` by `performance.regressions`).
    public var result: IntegrationResult { traits.result }

    /// Counted even at zero (errors, warnings, test failures); the others only when present.
    public var alwaysCounted: Bool { traits.alwaysCounted }

    /// Whether a new issue of this kind is a breakage a bisection looks for.
    public var breaks: Bool { traits.breaks }

    /// Counted from the failed tests, quarantined ones too, and written "1 test failure of 5 tests".
    public var countsTests: Bool { traits.countsTests }

    /// The kinds counted even at zero, in order: the columns of the pages' tables.
    public static let counted = allCases.filter(\.alwaysCounted)

    public init?(pluralName: String) {
        guard let type = Self.allCases.first(where: { $0.pluralName == pluralName }) else { return nil }
        self = type
    }
}
