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

/// A bot's `periodic:` schedule: `hourly`, `daily HH:MM`, `weekly DAY HH:MM` or `cron "m h dom mon dow"`.
///
/// Every form is held as the cron expression it means, so there is one way to find the next time.
public struct PeriodicSchedule: Sendable, Hashable, CustomStringConvertible {
    /// The schedule as written, normalised (`daily 02:00`).
    public let text: String
    public let cron: CronExpression

    public var description: String { text }

    public init(parsing text: String) throws(ScheduleError) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        switch words.first?.lowercased() {
        case "hourly" where words.count == 1:
            self.text = "hourly"
            cron = try CronExpression(parsing: "0 * * * *")
        case "daily" where words.count == 2:
            let (hour, minute) = try Self.time(words[1])
            self.text = "daily \(words[1])"
            cron = try CronExpression(parsing: "\(minute) \(hour) * * *")
        case "weekly" where words.count == 3:
            let day = words[1].lowercased()
            guard let weekday = Weekday(rawValue: day) else { throw .weekday(words[1]) }
            let (hour, minute) = try Self.time(words[2])
            self.text = "weekly \(day) \(words[2])"
            cron = try CronExpression(parsing: "\(minute) \(hour) * * \(weekday.number)")
        case "cron" where words.count > 1:
            var expression = text.trimmingWhitespace().dropFirst(4).trimmingWhitespace()
            if expression.count >= 2, expression.first == "\"" || expression.first == "'", expression.last == expression.first {
                expression = String(expression.dropFirst().dropLast())
            }
            cron = try CronExpression(parsing: expression)
            self.text = "cron \"\(cron.text)\""
        default:
            throw .unknownForm(text)
        }
    }

    /// The next time the schedule fires strictly after `date`.
    public func next(after date: Date, in calendar: Calendar) -> Date? {
        cron.next(after: date, in: calendar)
    }

    /// Parses `HH:MM` (24-hour clock).
    static func time(_ text: String) throws(ScheduleError) -> (hour: Int, minute: Int) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 2, (1...2).contains(parts[0].count), let hour = Int(parts[0]), let minute = Int(parts[1]),
            (0...23).contains(hour), (0...59).contains(minute)
        else { throw .time(text) }
        return (hour, minute)
    }
}

/// A day of the week as bot and server files spell it.
public enum Weekday: String, CaseIterable, Sendable, Hashable {
    case sun, mon, tue, wed, thu, fri, sat

    /// Cron's number for the day: Sunday is 0.
    public var number: Int { Self.allCases.firstIndex(of: self) ?? 0 }
}

/// Why a schedule or time could not be read.
public enum ScheduleError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownForm(String)
    case time(String)
    case weekday(String)
    case cronFieldCount(Int)
    case cronValue(field: String, value: String)
    case cronStep(field: String, value: String)
    case cronRange(field: String, value: String, range: ClosedRange<Int>)

    public var description: String {
        switch self {
        case .unknownForm(let text):
            "'\(text)' is not a schedule (use hourly, daily HH:MM, weekly DAY HH:MM or cron \"m h dom mon dow\")"
        case .time(let text): "'\(text)' is not a time of day (use HH:MM, 00:00 to 23:59)"
        case .weekday(let text): "'\(text)' is not a day of the week (use mon, tue, wed, thu, fri, sat or sun)"
        case .cronFieldCount(let count):
            "cron needs 5 fields (minute hour day-of-month month day-of-week), found \(count)"
        case .cronValue(let field, let value): "cron \(field) '\(value)' is not a number, range or name"
        case .cronStep(let field, let value): "cron \(field) step in '\(value)' must be a whole number of at least 1"
        case .cronRange(let field, let value, let range):
            "cron \(field) '\(value)' is out of range \(range.lowerBound)-\(range.upperBound)"
        }
    }
}
