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

/// A test whose failures fail nothing and mail nobody (`test.quarantine`): it still runs and
/// its results are recorded, so its page shows when it is fit to come back.
public struct QuarantinedTest: Sendable, Hashable {
    /// `Suite/test` as written: XCTest's `Class/testName` (or `Module.Class/testName`), Swift
    /// Testing's `Module.Suite/function()` (with or without its display name).
    public var test: String
    /// When the quarantine ends: the start of the day after `until:` (UTC); nil without one.
    public var ends: Date?
    /// Where the entry is written, for `kiln validate`'s warning once it has ended.
    public var line: Int
    public var column: Int

    public init(test: String, until ends: Date? = nil, line: Int = 1, column: Int = 1) {
        self.test = test
        self.ends = ends
        self.line = line
        self.column = column
    }

    /// Whether it still holds at `now`.
    public func holds(at now: Date) -> Bool {
        ends.map { now < $0 } ?? true
    }

    /// Whether `candidate` is the test this entry names.
    public func matches(_ candidate: TestCase) -> Bool {
        guard let slash = test.firstIndex(of: "/") else { return false }
        let suite = test[..<slash]
        let name = test[test.index(after: slash)...]
        let function = candidate.name.components(separatedBy: " \"").first ?? candidate.name
        return (suite == candidate.suite || suite.hasSuffix("." + candidate.suite)) && (name == candidate.name || name == function)
    }

    /// `Suite/test`: a suite and a name, neither empty.
    static func isValidName(_ text: String) -> Bool {
        guard let slash = text.firstIndex(of: "/") else { return false }
        return slash != text.startIndex && text.index(after: slash) != text.endIndex
    }

    /// The start of the day after `text` (`2026-12-31`), in UTC: the quarantine holds all of that day.
    static func day(_ text: String) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, text.count == 10 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2])
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return calendar.date(byAdding: .day, value: 1, to: date)
    }
}

extension [QuarantinedTest] {
    /// The entry holding `test` in quarantine at `now`, if any.
    public func holding(_ test: TestCase, at now: Date) -> QuarantinedTest? {
        first { $0.holds(at: now) && $0.matches(test) }
    }
}
