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

/// A standard five-field cron expression: minute, hour, day of month, month, day of week.
///
/// Fields take `*`, numbers, ranges (`1-5`), steps (`*/15`, `0-30/10`), lists (`1,15`) and, for
/// months and days of the week, names (`jan`, `mon-fri`). Day of week 0 and 7 are both Sunday.
/// As in Vixie cron, when both day fields are restricted a day matching either one qualifies.
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
    struct Field: Sendable, Hashable {
        let name: String
        let range: ClosedRange<Int>
        let names: [String]
    }

    static let minuteField = Field(name: "minute", range: 0...59, names: [])
    static let hourField = Field(name: "hour", range: 0...23, names: [])
    static let dayOfMonthField = Field(name: "day-of-month", range: 1...31, names: [])
    static let monthField = Field(
        name: "month", range: 1...12, names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"])
    static let dayOfWeekField = Field(name: "day-of-week", range: 0...7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"])

    public let text: String
    let minutes: UInt64
    let hours: UInt64
    let daysOfMonth: UInt64
    let months: UInt64
    /// Bits 0–6, Sunday is 0 (a 7 in the text is folded onto 0).
    let daysOfWeek: UInt64
    let dayOfMonthRestricted: Bool
    let dayOfWeekRestricted: Bool

    public var description: String { text }

    public init(parsing text: String) throws(ScheduleError) {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else { throw .cronFieldCount(fields.count) }
        self.text = fields.joined(separator: " ")
        minutes = try Self.parse(fields[0], Self.minuteField)
        hours = try Self.parse(fields[1], Self.hourField)
        daysOfMonth = try Self.parse(fields[2], Self.dayOfMonthField)
        months = try Self.parse(fields[3], Self.monthField)
        var weekdays = try Self.parse(fields[4], Self.dayOfWeekField)
        if weekdays & (1 << 7) != 0 { weekdays = (weekdays | 1) & ~(1 << 7) }
        daysOfWeek = weekdays
        dayOfMonthRestricted = !fields[2].hasPrefix("*")
        dayOfWeekRestricted = !fields[4].hasPrefix("*")
    }

    private static func parse(_ text: String, _ field: Field) throws(ScheduleError) -> UInt64 {
        var bits: UInt64 = 0
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else { throw .cronValue(field: field.name, value: text) }
            let parts = item.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var step = 1
            if parts.count == 2 {
                guard let parsed = Int(parts[1]), parsed >= 1 else { throw .cronStep(field: field.name, value: String(item)) }
                step = parsed
            }
            let rangeText = parts[0]
            var lower: Int
            var upper: Int
            if rangeText == "*" {
                lower = field.range.lowerBound
                upper = field.name == "day-of-week" ? 6 : field.range.upperBound
            } else if let dash = rangeText.firstIndex(of: "-") {
                lower = try value(rangeText[..<dash], field)
                upper = try value(rangeText[rangeText.index(after: dash)...], field)
                guard lower <= upper else { throw .cronValue(field: field.name, value: String(item)) }
            } else {
                lower = try value(rangeText, field)
                // `5/15` means from 5 to the end in steps of 15.
                upper = parts.count == 2 ? field.range.upperBound : lower
            }
            for value in stride(from: lower, through: upper, by: step) { bits |= 1 << UInt64(value) }
        }
        return bits
    }

    private static func value(_ text: Substring, _ field: Field) throws(ScheduleError) -> Int {
        if let index = field.names.firstIndex(of: text.lowercased()) { return field.range.lowerBound == 0 ? index : index + 1 }
        guard let number = Int(text) else { throw .cronValue(field: field.name, value: String(text)) }
        guard field.range.contains(number) else {
            throw .cronRange(field: field.name, value: String(text), range: field.range)
        }
        return number
    }

    /// The first minute strictly after `date` that the expression matches, in `calendar`'s time zone;
    /// nil if none within eight years (`0 0 30 2 *` never matches).
    public func next(after date: Date, in calendar: Calendar) -> Date? {
        let limit = date.addingTimeInterval(8 * 366 * 86_400)
        guard var candidate = calendar.dateInterval(of: .minute, for: date)?.end else { return nil }
        while candidate <= limit {
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: candidate)
            guard let year = parts.year, let month = parts.month, let day = parts.day, let hour = parts.hour, let minute = parts.minute,
                let weekday = parts.weekday
            else { return nil }
            if months & (1 << UInt64(month)) == 0 {
                guard let next = calendar.date(from: DateComponents(year: month == 12 ? year + 1 : year, month: month % 12 + 1, day: 1))
                else { return nil }
                candidate = next
                continue
            }
            if !matchesDay(day: day, weekday: weekday - 1) {
                guard let start = calendar.dateInterval(of: .day, for: candidate)?.end else { return nil }
                candidate = start
                continue
            }
            if hours & (1 << UInt64(hour)) == 0 {
                guard let start = calendar.dateInterval(of: .hour, for: candidate)?.end else { return nil }
                candidate = start
                continue
            }
            if minutes & (1 << UInt64(minute)) == 0 {
                candidate = candidate.addingTimeInterval(60)
                continue
            }
            return candidate
        }
        return nil
    }

    private func matchesDay(day: Int, weekday: Int) -> Bool {
        let dayOfMonthMatches = daysOfMonth & (1 << UInt64(day)) != 0
        let dayOfWeekMatches = daysOfWeek & (1 << UInt64(weekday)) != 0
        switch (dayOfMonthRestricted, dayOfWeekRestricted) {
        case (true, true): return dayOfMonthMatches || dayOfWeekMatches
        case (true, false): return dayOfMonthMatches
        case (false, true): return dayOfWeekMatches
        case (false, false): return true
        }
    }
}
