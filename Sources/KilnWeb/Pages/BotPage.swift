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
