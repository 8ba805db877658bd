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
import Testing

@Suite("Durations, periodic schedules and cron")
struct ScheduleTests {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar
    }()

    static func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        guard let date = formatter.date(from: text) else { preconditionFailure("bad test date \(text)") }
        return date
    }

    static func next(_ schedule: String, after: String, calendar: Calendar = utc) throws -> String? {
        let periodic = try PeriodicSchedule(parsing: schedule)
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = calendar.timeZone
        return periodic.next(after: date(after), in: calendar).map { formatter.string(from: $0) }
    }

    @Test(
        "Durations read as the sum of their parts, largest unit first",
        arguments: [
            ("90s", 90), ("2m", 120), ("1h30m", 5400), ("1d", 86_400), ("0", 0), ("0s", 0), ("1h0m5s", 3605),
        ])
    func durations(_ text: String, _ seconds: Int64) {
        #expect(Duration.parsing(text) == .seconds(seconds))
    }

    @Test("Malformed durations are refused", arguments: ["", "5", "m", "1.5h", "30m1h", "2 m", "-1s", "1hh", "1H", "9999999999s"])
    func malformedDurations(_ text: String) {
        #expect(Duration.parsing(text) == nil)
    }

    @Test("A duration spells itself back the way a bot file would")
    func durationSpelling() {
        #expect(Duration.seconds(5400).configSpelling == "1h30m")
        #expect(Duration.seconds(90).configSpelling == "1m30s")
        #expect(Duration.zero.configSpelling == "0")
    }

    @Test("hourly, daily and weekly fire at the next matching minute")
    func simpleForms() throws {
        #expect(try Self.next("hourly", after: "2026-03-10T10:15:00Z") == "2026-03-10T11:00:00Z")
        #expect(try Self.next("hourly", after: "2026-03-10T10:00:00Z") == "2026-03-10T11:00:00Z")
        #expect(try Self.next("daily 02:00", after: "2026-03-10T10:15:00Z") == "2026-03-11T02:00:00Z")
        #expect(try Self.next("daily 02:00", after: "2026-03-10T01:59:30Z") == "2026-03-10T02:00:00Z")
        // 2026-03-10 is a Tuesday.
        #expect(try Self.next("weekly mon 02:00", after: "2026-03-10T10:15:00Z") == "2026-03-16T02:00:00Z")
        #expect(try Self.next("weekly Tue 23:30", after: "2026-03-10T10:15:00Z") == "2026-03-10T23:30:00Z")
    }

    @Test("cron: steps, ranges, lists and names")
    func cron() throws {
        #expect(try Self.next("cron \"*/15 * * * *\"", after: "2026-03-10T10:16:00Z") == "2026-03-10T10:30:00Z")
        #expect(try Self.next("cron \"0 9-17/4 * * mon-fri\"", after: "2026-03-13T17:01:00Z") == "2026-03-16T09:00:00Z")
        #expect(try Self.next("cron \"30 6 1,15 * *\"", after: "2026-03-02T00:00:00Z") == "2026-03-15T06:30:00Z")
        #expect(try Self.next("cron '0 0 1 jan *'", after: "2026-03-02T00:00:00Z") == "2027-01-01T00:00:00Z")
        #expect(try Self.next("cron 0 12 * * 7", after: "2026-03-10T00:00:00Z") == "2026-03-15T12:00:00Z")
        #expect(try Self.next("cron \"5/20 * * * *\"", after: "2026-03-10T10:26:00Z") == "2026-03-10T10:45:00Z")
        // Leap day: the next 29 February after March 2026 is in 2028.
        #expect(try Self.next("cron \"0 0 29 feb *\"", after: "2026-03-01T00:00:00Z") == "2028-02-29T00:00:00Z")
    }

    @Test("cron with both day fields restricted matches either, as Vixie cron does")
    func cronDayUnion() throws {
        // The 20th, or any Monday: after Tuesday 10 March, Monday 16 March comes first.
        #expect(try Self.next("cron \"0 0 20 * mon\"", after: "2026-03-10T00:00:00Z") == "2026-03-16T00:00:00Z")
    }

    @Test("A schedule that can never fire has no next time")
    func never() throws {
        #expect(try Self.next("cron \"0 0 30 feb *\"", after: "2026-03-01T00:00:00Z") == nil)
    }

    @Test("Schedules are evaluated in the configured time zone")
    func timeZone() throws {
        var berlin = Calendar(identifier: .gregorian)
        berlin.timeZone = try #require(TimeZone(identifier: "Europe/Berlin"))
        // 02:00 in Berlin in winter is 01:00 UTC.
        #expect(try Self.next("daily 02:00", after: "2026-01-10T12:00:00Z", calendar: berlin) == "2026-01-11T02:00:00+01:00")
    }

    @Test("Schedules are normalised for display")
    func normalised() throws {
        #expect(try PeriodicSchedule(parsing: "weekly MON 02:00").text == "weekly mon 02:00")
        #expect(try PeriodicSchedule(parsing: "cron   */15  * * * *").text == "cron \"*/15 * * * *\"")
    }
}
