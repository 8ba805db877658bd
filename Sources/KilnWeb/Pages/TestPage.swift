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

    init(bot: String, history: TestHistory) {
        title = "\(history.suite).\(history.name) · \(bot) · Kiln"
        self.bot = bot
        botURL = "/bots/\(bot)"
        suite = history.suite
        name = history.name
        flakyReason = history.flakiness?.sentence
        let count = { (status: TestStatus) in history.runs.filter { $0.test.status == status }.count }
        let counts = TestStatus.allCases.compactMap { status in count(status) > 0 ? "\(count(status)) \(status.rawValue)" : nil }
        let span = history.runs.count == 1 ? "the last integration" : "the last \(history.runs.count) integrations"
        resultsText = counts.isEmpty ? "none" : counts.joined(separator: ", ") + " in " + span
        flipRate =
            history.flipRate.map { "\(Int(($0 * 100).rounded())) % (\(history.flips) change\(history.flips == 1 ? "" : "s") of result)" }
            ?? "—"
        let oldestFirst = Array(history.runs.reversed())
        charts = [TrendChart(title: "Duration", values: oldestFirst.map(\.test.duration), format: DurationText.prose)]
        // One chart per host that measured it (machines differ, and so do their baselines).
        var hosts: [String] = []
        for run in oldestFirst where run.test.measurement != nil && !hosts.contains(run.host ?? "") { hosts.append(run.host ?? "") }
        for host in hosts {
            let measured = oldestFirst.filter { $0.host ?? "" == host }.compactMap(\.test.measurement)
            charts.append(
                TrendChart(
                    title: "\(measured.last?.unit == .count ? "Count" : "Time") measured on \(host.isEmpty ? "an unnamed host" : host)",
                    values: measured.map(\.median), reference: measured.map(\.baseline), format: measured.last?.text ?? PerformanceRegression.seconds)
            )
        }
        runs = history.runs.map { run in
            TestRunView(
                number: run.number, url: "/bots/\(bot)/integrations/\(run.number)", status: run.test.status.rawValue,
                tone: Self.tone(run.test.status), duration: DurationText.prose(run.test.duration), commit: Formatting.shortSHA(run.commit),
                host: run.host ?? "", endedAt: Formatting.iso(run.endedAt), message: run.test.message,
                measured: run.test.measurement.map { measurement in
                    measurement.text(measurement.median) + (measurement.changeText.map { " (\($0))" } ?? "")
                })
        }
        hasRuns = !runs.isEmpty
        measures = runs.contains { $0.measured != nil }
    }

    static func tone(_ status: TestStatus) -> String {
        switch status {
        case .passed: "good"
        case .failed: "bad"
        case .flaky: "warn"
        case .skipped: "neutral"
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
