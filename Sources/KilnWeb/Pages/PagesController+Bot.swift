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
import KilnStore

extension PagesController {
    /// `/bots/{bot}`: its history (filtered by `query`), charts, pull requests, quarantined
    /// tests and a search for a test.
    func botPage(_ overview: BotOverview, page: Page, query: HistoryQuery? = nil, actions csrf: String? = nil) async throws -> String {
        let now = clock.now
        let name = overview.state.name
        let query = try query ?? HistoryQuery(Parameters())
        let history =
            query.filter.isEmpty
            ? try await store.integrations(bot: name, limit: page.limit + 1, before: page.before)
            : try await store.integrations(bot: name, matching: query.filter, limit: page.limit + 1, before: page.before)
        let shown = Array(history.prefix(page.limit))
        let cells = try await store.cells(bot: name, of: shown.map(\.number))
        let recent =
            page.before == nil && page.limit >= Self.chartSpan && query.filter.isEmpty
            ? Array(history.prefix(Self.chartSpan)) : try await store.integrations(bot: name, limit: Self.chartSpan, before: nil)
        let completed = recent.filter { $0.step == .completed && $0.pullRequest == nil }.reversed()
        let charts = [
            chart("Duration", completed, \.duration, format: DurationText.prose),
            chart("Tests", completed, { $0.summary.map { Double($0.tests) } }, format: { String(Int($0.rounded())) }),
            chart("Issues", completed, { $0.summary.map { Double($0.issues.values.reduce(0, +)) } }, format: { String(Int($0.rounded())) }),
            chart("Coverage", completed, { $0.summary?.coverage }, format: { Summary(coverage: $0).coverageText ?? "" }),
            // each integration's change since the one before: how much of what was added ran
            chart("Change covered", completed, { $0.patchCoverage?.percent }, format: { Summary(coverage: $0).coverageText ?? "" }),
        ]
        let pullRequests = try await store.pullRequests(bot: name, includeClosed: false).map {
            PullRequestView($0.pullRequest, latest: $0.latest, now: now)
        }
        let problem = try await store.statusProblems().first { $0.bot == name }
        let reviewProblem = try await store.reviewProblems().first { $0.bot == name }
        let quarantined = try await store.quarantinedTests(bot: name, limit: Self.quarantinedShown, results: Self.quarantinedResults).map {
            QuarantinedTestView(bot: name, history: $0)
        }
        let bot = await bots().first { $0.name == name }
        var found: [TestName]?
        if let test = query.test { found = try await store.tests(bot: name, containing: test, limit: Self.testsFound) }
        let archive = "\(name).tar.gz"
        let archived = try await store.latestAsset(bot: name, name: archive, results: Set(IntegrationResult.allCases)) != nil
        var view = BotPage(
            title: "\(name) · Kiln", name: name, repository: overview.state.repository, branch: overview.state.branch,
            status: overview.status.rawValue,
            problems: overview.state.problems, hasProblems: !overview.state.problems.isEmpty,
            running: overview.running.first.map { ActiveView($0, now: now, cancelable: csrf != nil) },
            queued: overview.queued.map { ActiveView($0, now: now, cancelable: csrf != nil) },
            integrations: shown.map { IntegrationSummaryView($0, cells: cells[$0.number] ?? [], now: now, bot: bot) },
            hasIntegrations: !shown.isEmpty, charts: charts,
            olderURL: history.count > page.limit ? shown.last.map { "/bots/\(name)?before=\($0.number)\(query.filterParameters)" } : nil,
            newestURL: page.before != nil ? "/bots/\(name)?\(query.filterParameters.dropFirst())" : nil, badgeURL: "/bots/\(name)/badge.svg",
            pullRequests: pullRequests,
            hasPullRequests: !pullRequests.isEmpty, statusProblem: problem.map { StatusProblemView($0, now: now) },
            reviewProblem: reviewProblem.map { StatusProblemView($0, now: now) }, quarantined: quarantined,
            hasQuarantined: !quarantined.isEmpty, latestArchiveURL: archived ? "/bots/\(name)/latest/\(archive)" : nil, csrf: csrf,
            integrateURL: "/api/bots/\(name)/integrations")
        var names: [String] = []
        for cell in shown.flatMap({ cells[$0.number] ?? [] }).compactMap(\.cell?.name) where !names.contains(cell) { names.append(cell) }
        view.cellLegend = names.isEmpty ? nil : names.joined(separator: ", ")
        view.resultOptions = query.resultOptions
        (view.filterAuthor, view.filterBranch, view.filterPull) = (query.filter.author, query.filter.branch, query.filter.pullRequest)
        view.filtered = !query.filter.isEmpty
        view.testQuery = query.test
        view.foundTests = found?.map {
            FoundTestView(name: "\($0.suite).\($0.name)", url: TestAddress.path(bot: name, suite: $0.suite, name: $0.name))
        }
        view.foundNothing = found?.isEmpty == true
        view.foundCut = (found?.count ?? 0) >= Self.testsFound
        return assets.render(view, "bot")
    }

    /// A bot page's chart of `value` over `integrations` (oldest first), each point linking to its integration.
    func chart(
        _ title: String, _ integrations: some Sequence<Integration>, _ value: (Integration) -> Double?, format: (Double) -> String
    ) -> TrendChart {
        TrendChart(
            title: title,
            points: integrations.map {
                TrendChart.Point(number: $0.number, url: "/bots/\($0.bot)/integrations/\($0.number)", value: value($0))
            }, format: format)
    }
}
