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

/// A summary as pages and mails write it: a figure per kind of issue, each change as `+2` or
/// `−1` (nil when nothing changed or there is nothing to compare with, so that a template writes
/// nothing) and coverage as `87.5 %`. The templates read it as `figures` and iterate over its
/// kinds, never naming one; stored properties only, since Mustache reads them by reflection.
public struct SummaryFigures: Sendable, Hashable {
    /// One kind's count.
    public struct Kind: Sendable, Hashable {
        /// The kind's name in the API's summary (`testFailures`).
        public var key: String
        public var count: Int
        public var change: String?
        /// The count with its noun, as English: `1 test failure`, `0 errors`.
        public var text: String
        /// After the change, for a kind counted from the tests: ` of 3 tests`; else empty.
        public var among: String
        /// What stands before it in a line of figures: nothing for the first, else `, `.
        public var separator: String
    }

    /// The kinds always counted and those present (counted, or changed since the previous
    /// integration), in the kinds' order: `0 errors, 1 warning, 1 test failure of 3 tests`.
    public var issues: [Kind]
    /// The kinds always counted, present or not: the columns of the pages' tables.
    public var columns: [Kind]
    public var tests: Int
    public var testsChange: String?
    /// `3 tests`.
    public var testsText: String
    public var coverage: String?

    /// The titles of `columns`, for a table's head: `Errors`, `Test failures`.
    public static let columnTitles = IssueType.counted.map { kind in
        let plural = CountText.plural(of: kind.noun)
        return plural.prefix(1).uppercased() + plural.dropFirst()
    }

    /// The figures of `summary`; all zero when the integration has none (it never built).
    public init(_ summary: Summary?) {
        let summary = summary ?? Summary()
        tests = summary.tests
        testsChange = Self.change(summary.testsChange)
        testsText = CountText.of(tests, "test")
        coverage = summary.coverageText
        let all = IssueType.allCases.map { kind in
            Kind(
                key: kind.summaryKey, count: summary[kind], change: Self.change(summary.change(kind)), text: CountText.of(summary[kind], kind.noun),
                among: kind.countsTests ? " of \(CountText.of(summary.tests, "test"))" : "", separator: ", ")
        }
        columns = zip(IssueType.allCases, all).filter { $0.0.alwaysCounted }.map(\.1)
        issues = zip(IssueType.allCases, all).filter { $0.0.alwaysCounted || $0.1.count != 0 || $0.1.change != nil }.map(\.1)
        if !issues.isEmpty { issues[0].separator = "" }
        if !columns.isEmpty { columns[0].separator = "" }
    }

    /// A change as every output writes it: `+2`, `−1` (a minus sign, not a hyphen); nil for none.
    public static func change(_ value: Int?) -> String? {
        guard let value, value != 0 else { return nil }
        return value > 0 ? "+\(value)" : "−\(-value)"
    }
}
