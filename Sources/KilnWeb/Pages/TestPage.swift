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
import Hummingbird
import KilnCore
import KilnPresentation

// What a test's page renders (Web/test.mustache). The rules of ViewModels.swift hold here.

struct TestRunView {
    var number: Int
    var url: String
    /// For a matrix: the cell it ran in.
    var cell: String?
    var status: String
    var tone: String
    var duration: String
    var commit: String
    var host: String
    var endedAt: String
    var message: String?
    /// The median of its `measure {}` and the change against the baseline, or nil.
    var measured: String?
}

struct TestPage {
    var title: String
    var bot: String
    var botURL: String
    var suite: String
    var name: String
    var flakyReason: String?
    var resultsText: String
    var flipRate: String
    var charts: [TrendChart]
    var runs: [TestRunView]
    var hasRuns: Bool
    /// Whether any run measured something: the table gains a column.
    var measures: Bool
    /// Whether it ran in a matrix's cells: a row per cell per integration, a Cell column.
    var hasCells: Bool

    init(bot: String, history: TestHistory) {
        title = "\(history.suite).\(history.name) · \(bot) · Kiln"
        self.bot = bot
        botURL = "/bots/\(bot)"
        suite = history.suite
        name = history.name
        var cells: [String] = []
        for run in history.runs { if let cell = run.test.cell, !cells.contains(cell) { cells.append(cell) } }
        cells.sort()
        hasCells = !cells.isEmpty
        // Each cell is judged by its own history (as integrations judge it, `TestHistory.inCell`).
        let judged = cells.isEmpty ? [(nil, history)] : cells.map { ($0 as String?, history.inCell($0)) }
        let reasons = judged.compactMap { cell, history in history.flakiness.map { (cell.map { "\($0): " } ?? "") + $0.sentence } }
        flakyReason = reasons.isEmpty ? nil : reasons.joined(separator: "; ")
        resultsText = Self.results(history, cells: cells.count)
        flipRate = judged.map { cell, history in
            (cell.map { "\($0): " } ?? "")
                + (history.flipRate.map { "\(Int(($0 * 100).rounded())) % (\(CountText.of(history.flips, "change")) of result)" } ?? "—")
        }.joined(separator: "; ")
        charts = judged.map { cell, history in
            TrendChart(
                title: "Duration" + (cell.map { " in \($0)" } ?? ""),
                points: history.runs.reversed().map {
                    TrendChart.Point(number: $0.number, url: "/bots/\(bot)/integrations/\($0.number)", value: $0.test.duration)
                },
                format: DurationText.prose)
        }
        let oldestFirst = Array(history.runs.reversed())
        // One chart per host that measured it (machines differ, and so do their baselines).
        var hosts: [String] = []
        for run in oldestFirst where run.test.measurement != nil && !hosts.contains(run.host ?? "") { hosts.append(run.host ?? "") }
        for host in hosts {
            let measured = oldestFirst.filter { $0.host ?? "" == host && $0.test.measurement != nil }
            let last = measured.last?.test.measurement
            charts.append(
                TrendChart(
                    title: "\(last?.unit == .count ? "Count" : "Time") measured on \(host.isEmpty ? "an unnamed host" : host)",
                    points: measured.map { run in
                        TrendChart.Point(
                            number: run.number, url: "/bots/\(bot)/integrations/\(run.number)", value: run.test.measurement?.median,
                            reference: run.test.measurement?.baseline)
                    }, format: last?.text ?? PerformanceRegression.seconds)
            )
        }
        runs = history.runs.sorted { ($0.number, $1.test.cell ?? "") > ($1.number, $0.test.cell ?? "") }.map { run in
            TestRunView(
                number: run.number, url: "/bots/\(bot)/integrations/\(run.number)", cell: run.test.cell, status: run.test.status.rawValue,
                tone: Self.tone(run.test.status), duration: DurationText.prose(run.test.duration), commit: Formatting.shortSHA(run.commit),
                host: run.host ?? "", endedAt: Formatting.iso(run.endedAt), message: run.test.message,
                measured: run.test.measurement.map { measurement in
                    measurement.text(measurement.median) + (measurement.changeText.map { " (\($0))" } ?? "")
                })
        }
        hasRuns = !runs.isEmpty
        measures = runs.contains { $0.measured != nil }
    }

    /// "2 passed, 1 failed in the last 3 integrations": integrations counted once however many
    /// cells they ran it in, which then say how many results that was.
    static func results(_ history: TestHistory, cells: Int) -> String {
        let count = { (status: TestStatus) in history.runs.filter { $0.test.status == status }.count }
        let counts = TestStatus.allCases.compactMap { status in
            count(status) > 0 ? "\(count(status)) \(status == .notRun ? "not run" : status.rawValue)" : nil
        }
        guard !counts.isEmpty else { return "none" }
        let integrations = Set(history.runs.map(\.number)).count
        let span = integrations == 1 ? "the last integration" : "the last \(integrations) integrations"
        let results = cells > 0 ? " (\(CountText.of(history.runs.count, "result")) in \(CountText.of(cells, "cell")))" : ""
        return counts.joined(separator: ", ") + " in " + span + results
    }

    static func tone(_ status: TestStatus) -> String {
        switch status {
        case .passed: "good"
        case .failed: "bad"
        case .flaky: "warn"
        case .skipped, .notRun: "neutral"
        }
    }
}

/// A test's address under its bot: `/bots/{bot}/tests/{suite}/{name}`, each part percent-encoded
/// (a name may hold spaces, quotes and slashes; a suite never holds a slash).
enum TestAddress {
    static func path(bot: String, suite: String, name: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#%")
        let encode = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        return "/bots/\(bot)/tests/\(encode(suite))/\(encode(name))"
    }

    /// The suite and name of the path after `tests/`, as the router caught it (still encoded).
    static func parse(_ components: [Substring]) throws -> (suite: String, name: String) {
        let decoded = components.map { $0.removingPercentEncoding ?? String($0) }
        guard decoded.count >= 2, let suite = decoded.first, !suite.isEmpty else {
            throw WebError.notFound("test '\(decoded.joined(separator: "/"))': give it as tests/SUITE/NAME")
        }
        return (suite, decoded.dropFirst().joined(separator: "/"))
    }
}
