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

// What a bot's page renders (Web/bot.mustache). The rules of ViewModels.swift hold here.

import KilnCore
import KilnPresentation

struct TrendChart {
    var title: String
    var latest: String
    var low: String
    var high: String
    var svgPoints: String
    var width = TrendChart.width
    var height = TrendChart.height
    var empty: Bool

    static let width = 300
    static let height = 60

    /// A line over `values` (oldest first), scaled to the chart; nil values are skipped. A
    /// `reference` series (the baseline each value was judged against) is drawn dashed on the
    /// same scale.
    init(title: String, values: [Double?], reference: [Double?]? = nil, format: (Double) -> String) {
        self.title = title
        let present = values.compactMap { $0 }
        empty = present.isEmpty
        let scale = present + (reference ?? []).compactMap { $0 }
        let low = scale.min() ?? 0
        let high = scale.max() ?? 0
        self.low = present.isEmpty ? "" : format(low)
        self.high = present.isEmpty ? "" : format(high)
        latest = present.last.map(format) ?? "—"
        svgPoints = Self.points(values, low: low, high: high)
        referencePoints = reference.map { Self.points($0, low: low, high: high) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A dashed second line (the baseline), or nil.
    var referencePoints: String?

    private static func points(_ values: [Double?], low: Double, high: Double) -> String {
        let span = high - low
        let step = values.count > 1 ? Double(width - 4) / Double(values.count - 1) : 0
        var points: [String] = []
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            let x = 2 + Double(index) * step
            let y = span > 0 ? 2 + (1 - (value - low) / span) * Double(height - 4) : Double(height) / 2
            points.append(String(format: "%.1f,%.1f", x, y))
        }
        return points.joined(separator: " ")
    }
}

struct BotPage {
    var title: String
    var name: String
    var repository: String
    var branch: String
    var status: String
    var problems: [String]
    var hasProblems: Bool
    var running: ActiveView?
    var queued: [ActiveView]
    var integrations: [IntegrationSummaryView]
    var hasIntegrations: Bool
    /// The heads of the history's issue columns, one per kind always counted.
    var kindColumns = SummaryFigures.columnTitles
    var charts: [TrendChart]
    var olderURL: String?
    var newestURL: String?
    var badgeURL: String
    var pullRequests: [PullRequestView]
    var hasPullRequests: Bool
    var statusProblem: StatusProblemView?
    /// The latest refused pull request review, with the forge's words; nil while reviews get through.
    var reviewProblem: StatusProblemView?
    var quarantined: [QuarantinedTestView]
    var hasQuarantined: Bool
    /// `/bots/{bot}/latest/{bot}.tar.gz`, once the bot has kept an archive.
    var latestArchiveURL: String?
    /// A signed-in member's forms' anti-forgery value; nil: no forms.
    var csrf: String? = nil
    var integrateURL: String? = nil
    /// For a matrix: what the squares beside each result are, in their order.
    var cellLegend: String? = nil
    /// The history's filter as the form shows it.
    var resultOptions: [HistoryQuery.ResultOption] = []
    var filterAuthor: String? = nil
    var filterBranch: String? = nil
    var filterPull: Int? = nil
    var filtered = false
    /// A search for a test: what was asked, and what was found (nil: nothing asked).
    var testQuery: String? = nil
    var foundTests: [FoundTestView]? = nil
    var foundNothing = false
    var foundCut = false
}

struct FoundTestView {
    var name: String
    var url: String
}

/// A quarantined test on its bot's page: its name, linked to its history, and its last results.
struct QuarantinedTestView {
    struct Result {
        var number: Int
        var url: String
        var status: String
        var tone: String
    }

    var name: String
    var url: String
    var results: [Result]

    init(bot: String, history: TestHistory) {
        name = "\(history.suite)/\(history.name)"
        url = TestAddress.path(bot: bot, suite: history.suite, name: history.name)
        results = history.runs.map {
            Result(
                number: $0.number, url: "/bots/\(bot)/integrations/\($0.number)", status: $0.test.status.rawValue, tone: TestPage.tone($0.test.status)
            )
        }
    }
}
