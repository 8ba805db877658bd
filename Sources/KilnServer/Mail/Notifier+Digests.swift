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
import KilnMail
import KilnPresentation
import KilnStore

/// The daily and weekly digests (`reports:` in kiln.yml), composed into the outbox once across hosts.
extension Notifier {
    /// Queues the daily and weekly digests whose time has come: for each frequency, the period
    /// that ended most recently at or before `now`, unless its bots had never integrated by then.
    /// Returns how many mails were queued.
    @discardableResult
    public func queueDigests(bots: [Bot], now: Date) async throws(StoreError) -> Int {
        var queued = 0
        for frequency in [ReportFrequency.daily, .weekly] {
            guard let end = lastReportTime(frequency, atOrBefore: now) else { continue }
            let days = frequency == .daily ? 1 : 7
            guard let start = calendar.date(byAdding: .day, value: -days, to: end),
                let previousStart = calendar.date(byAdding: .day, value: -days, to: start)
            else { continue }
            // One digest per set of recipients, with every bot reporting to it.
            var audiences: [[EmailAddress]: [(Bot, EmailTrigger)]] = [:]
            for bot in bots {
                for case .email(let trigger) in bot.triggers where trigger.kind == .report(frequency) {
                    let to = trigger.to.filter(trigger.allows)
                    if !to.isEmpty { audiences[to, default: []].append((bot, trigger)) }
                }
            }
            for (to, members) in audiences {
                let key = "digest:\(frequency.rawValue):\(Int(end.timeIntervalSince1970)):" + to.map(\.address).sorted().joined(separator: ",")
                var sections: [DigestBot] = []
                var anyHistory = false
                for (bot, _) in members.sorted(by: { $0.0.name < $1.0.name }) {
                    let figures = try await store.digest(bot: bot.name, from: start, to: end)
                    let before = try await store.digest(bot: bot.name, from: previousStart, to: start)
                    anyHistory = anyHistory || figures.last != nil
                    sections.append(digestSection(bot.name, figures, before: before))
                }
                // Bots that had never integrated by the period's end (a new server) have nothing to report.
                guard anyHistory else { continue }
                let view = DigestMail(period: frequency.rawValue, from: Self.day(start, timeZone), to: Self.day(end, timeZone), bots: sections)
                let (text, html) = templates.render("digest", view)
                let subject = "Kiln \(frequency.rawValue) report, \(Self.day(end, timeZone))"
                let message = MailMessage(from: from, to: to, subject: subject, text: text, html: html, listID: "digest.kiln", date: now)
                if try await store.queueMail(
                    OutgoingMail(dedupeKey: key, recipients: message.recipients, subject: subject, message: message.rendered()), now: now)
                {
                    queued += 1
                }
            }
        }
        return queued
    }

    private var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The latest daily (or weekly) report time at or before `date`.
    func lastReportTime(_ frequency: ReportFrequency, atOrBefore date: Date) -> Date? {
        var components = DateComponents(hour: reports.dailyHour, minute: reports.dailyMinute, second: 0)
        // Calendar counts Sunday as 1, cron as 0.
        if frequency == .weekly { components.weekday = reports.weeklyOn.number + 1 }
        return calendar.nextDate(after: date.addingTimeInterval(1), matching: components, matchingPolicy: .nextTime, direction: .backward)
    }

    private func digestSection(_ name: String, _ figures: DigestFigures, before: DigestFigures) -> DigestBot {
        let good = { (f: DigestFigures) in f.results.filter(\.key.isPassing).values.reduce(0, +) }
        var trend = "\(figures.count) vs \(before.count) integrations in the previous period"
        if figures.count > 0, before.count > 0 {
            let now = Double(good(figures)) / Double(figures.count) * 100
            let then = Double(good(before)) / Double(before.count) * 100
            trend += String(format: ", %.0f %% passing (was %.0f %%)", now, then)
        }
        return DigestBot(
            name: name, url: "\(publicURL)/bots/\(name)", status: figures.last?.result?.rawValue ?? "no integration yet", count: figures.count,
            countText: CountText.of(figures.count, "integration"),
            results: IntegrationResult.allCases.compactMap { result in figures.results[result].map { ResultCount(result: result.rawValue, count: $0) }
            },
            trend: trend, averageDuration: DurationText.prose(figures.averageDuration), introduced: figures.issuesIntroduced,
            resolved: figures.issuesResolved,
            slowest: figures.slowestTests.map { TestLine(name: "\($0.suite).\($0.name)", duration: DurationText.prose($0.duration)) },
            hasSlowest: !figures.slowestTests.isEmpty,
            flaky: figures.flakyTests.map { TestLine(name: $0.name, duration: $0.times == 1 ? "once" : "\($0.times) times") },
            hasFlaky: !figures.flakyTests.isEmpty)
    }
}
