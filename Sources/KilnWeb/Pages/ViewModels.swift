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
import KilnPresentation

// What the templates in Web/ render. Stored properties only: Mustache reads them by reflection.
// Every String here is escaped by `{{…}}` in the templates; only numbers built by Kiln itself go
// into attributes. A log's lines and the charts are the exceptions, written as HTML by `LogHTML`
// and `TrendChart` (which escape what they hold) and put in whole with `{{{…}}}`: thousands of
// values reflected one by one made a page 30 times slower.

struct IntegrationSummaryView {
    var number: Int
    var url: String
    var result: String
    var tone: String
    var cause: String
    var commit: String
    var ago: String
    var endedAt: String
    var duration: String
    var figures: SummaryFigures
    /// The pull request's number, for an integration of one.
    var pull: Int?
    /// For a bot with a matrix: each cell's result, a mark each.
    var cells: [CellMark] = []
    /// Its commit's subject and author, once known, and the forge's page of the commit.
    var subject: String?
    var author: String?
    var commitURL: String?

    struct CellMark {
        var name: String
        var result: String
        var tone: String
    }

    init(_ integration: Integration, cells: [Integration], now: Date, bot: Bot?) {
        self.init(integration, now: now, bot: bot)
        self.cells = cells.map {
            CellMark(name: $0.cell?.name ?? "?", result: $0.result?.rawValue ?? $0.step.rawValue, tone: IntegrationReport.tone($0.result))
        }
    }

    init(_ integration: Integration, now: Date, bot: Bot? = nil) {
        number = integration.number
        subject = integration.subject
        author = integration.author
        commitURL = bot.flatMap { bot in integration.commit.flatMap { SourceLink.commit($0, bot: bot) } }
        url = "/bots/\(integration.bot)/integrations/\(integration.number)"
        result = integration.result?.rawValue ?? integration.step.rawValue
        tone = IntegrationReport.tone(integration.result)
        cause = integration.cause.rawValue
        commit = Formatting.shortSHA(integration.commit)
        ago = Ago.text(integration.endedAt ?? integration.startedAt ?? integration.queuedAt, now: now)
        endedAt = Formatting.iso(integration.endedAt)
        duration = DurationText.prose(integration.duration)
        figures = SummaryFigures(integration.summary)
        pull = integration.pullRequest?.number
    }
}

/// A pull request as the pages show it. Its title and names are user text (escaped by `{{…}}`);
/// its link is kept only when it is an http(s) URL.
struct PullRequestView {
    var number: Int
    var title: String
    var author: String
    var url: String?
    var head: String
    var base: String
    var fork: Bool
    /// Its latest integration, on the bot page.
    var latest: IntegrationSummaryView?

    init(_ pullRequest: PullRequest, latest: Integration? = nil, now: Date) {
        number = pullRequest.number
        title = pullRequest.title
        author = pullRequest.author
        let lowered = pullRequest.url?.lowercased() ?? ""
        url = lowered.hasPrefix("https://") || lowered.hasPrefix("http://") ? pullRequest.url : nil
        head = pullRequest.head
        base = pullRequest.base
        fork = pullRequest.fork
        self.latest = latest.map { IntegrationSummaryView($0, now: now) }
    }
}

/// Why a bot's commit statuses do not reach its forge.
struct StatusProblemView {
    var code: String
    var message: String
    var at: String
    var ago: String

    init(_ problem: StatusProblem, now: Date) {
        code = problem.responseCode.map { "HTTP \($0)" } ?? "no answer"
        message = problem.message
        at = Formatting.iso(problem.at)
        ago = Ago.text(problem.at, now: now)
    }
}

struct ActiveView {
    var number: Int
    var url: String
    var step: String
    var elapsed: String
    var commit: String
    /// Where a member's Cancel form posts; nil for anyone else.
    var cancelURL: String?

    init(_ integration: Integration, now: Date, cancelable: Bool = false) {
        number = integration.number
        url = "/bots/\(integration.bot)/integrations/\(integration.number)"
        cancelURL = cancelable ? "/api" + url + "/cancel" : nil
        step = integration.step.rawValue
        let since = integration.startedAt ?? integration.queuedAt
        elapsed = DurationText.prose(now.timeIntervalSince(since))
        commit = Formatting.shortSHA(integration.commit)
    }
}
