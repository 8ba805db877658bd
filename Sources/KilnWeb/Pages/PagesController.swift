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

/// The read-only HTML pages: `/`, `/bots/{bot}`, `/bots/{bot}/integrations/{n}`, and the badge.
struct PagesController {
    let store: any IntegrationRecords & HostRegistry & LogsAndAssets & Outboxes
    let assets: WebAssets
    let cache: ResponseCache
    /// This host's notice for the front page, if any.
    var notice: String? = nil
    var clock: WallClock = .system
    /// The bots as last loaded: where a failure's file is read and linked.
    var bots: @Sendable () async -> [Bot] = { [] }
    var source: SourceReader = { _, _, _ in .unavailable("no repository is read here") }
    /// Completed integrations' tails, rendered once, and the files failures show lines of.
    var renderedTails = Kept<String>()
    var sourceFiles = Kept<[Substring]>()

    /// Integrations per history page, and how many the trend charts cover.
    static let pageSize = 25
    static let chartSpan = 50
    /// Tests listed on an integration page; the API has them all.
    static let testsShown = 2000
    /// Quarantined tests listed on a bot page, and how many of each one's results.
    static let quarantinedShown = 50
    static let quarantinedResults = 10
    /// The most tests a bot page's search lists.
    static let testsFound = 50

    func addRoutes(to router: Router<KilnRequestContext>) {
        router.get("/") { request, context in
            PageChrome.page(try await frontPage(for: context.access, bigscreen: request.uri.queryParameters.get("bigscreen") != nil), for: context)
        }
        router.get("style.css") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=300"],
                body: .init(byteBuffer: ByteBuffer(string: assets.stylesheet)))
        }
        router.get("bots/{bot}") { request, context in
            let overview = try await store.overview(of: try context.parameters.require("bot"))
            let page = try Page(request.uri.queryParameters, defaultLimit: Self.pageSize, maximumLimit: 200)
            let query = try HistoryQuery(request.uri.queryParameters)
            let html = try await botPage(overview, page: page, query: query, actions: Self.actions(context, on: overview.state))
            return PageChrome.page(ByteBuffer(string: html), for: context)
        }
        router.get("bots/{bot}/integrations/{number}") { request, context in
            let overview = try await store.overview(of: try context.parameters.require("bot"))
            let number = try APIController.number(context.parameters.get("number"))
            guard let detail = try await store.integration(bot: overview.state.name, number: number) else {
                throw WebError.notFound("integration \(number) of bot '\(overview.state.name)'")
            }
            let bisection = try await store.bisection(of: detail.integration.id)
            let actions = Self.actions(context, on: overview.state)
            // Sent back here by a Cancel that came too late, or a re-run that could not be
            // (`ActionsController`).
            let notice =
                request.uri.queryParameters["already"] == "ended"
                ? Self.alreadyEnded : request.uri.queryParameters["rerun"].flatMap { Self.rerunRefused(detail, only: String($0)) }
            let html = try await integrationPage(detail, bisection: bisection, actions: actions, notice: notice)
            return PageChrome.page(ByteBuffer(string: html), for: context)
        }
        router.get("bots/{bot}/tests/**") { request, context in
            let bot = try await store.overview(of: try context.parameters.require("bot")).state.name
            let (suite, name) = try TestAddress.parse(context.parameters.getCatchAll())
            let page = try Page(request.uri.queryParameters, defaultLimit: Self.chartSpan, maximumLimit: APIController.maximumLimit)
            let history = try await store.testHistory(bot: bot, suite: suite, name: name, limit: page.limit)
            return PageChrome.page(ByteBuffer(string: assets.render(TestPage(bot: bot, history: history), "test")), for: context)
        }
        router.get("bots/{bot}/badge.svg") { _, context in
            let overview = try await store.overview(of: try context.parameters.require("bot"))
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: Badge.svg(for: overview))))
        }
    }

    static func html(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: body))
    }

    /// The anti-forgery value of a signed-in member's forms on pages of `bot`; nil when the
    /// request may not act on it, or came with a bearer token (no forms for scripts).
    static func actions(_ context: KilnRequestContext, on bot: BotState) -> String? {
        guard let hash = context.sessionTokenHash, context.access.mayAct(on: bot.name, isPrivate: bot.isPrivate) else { return nil }
        return TokenSecret.formToken(forTokenHash: hash)
    }

    /// The front page as `access` may see it, from the cache: one copy per set of bots a request
    /// may see, and everyone anonymous shares one.
    func frontPage(for access: Access, bigscreen: Bool) async throws -> ByteBuffer {
        let key =
            access.role == nil && access.anonymousRead
            ? (bigscreen ? "page/bigscreen|public" : "page/index|public") : (bigscreen ? "page/bigscreen|" : "page/index|") + access.scope
        return try await cache.body(for: key) {
            ByteBuffer(string: try await indexPage(bigscreen: bigscreen, access: access))
        }
    }

    func indexPage(bigscreen: Bool, access: Access) async throws -> String {
        let now = clock.now
        let overviews = try await store.botOverviews().filter { $0.loaded && access.maySee($0.state.name, isPrivate: $0.state.isPrivate) }
        let good = overviews.filter { $0.state.problems.isEmpty }
        let broken = overviews.filter { !$0.state.problems.isEmpty }.map {
            BrokenBotView(name: $0.state.name, file: $0.state.file, problems: $0.state.problems)
        }
        let hosts = try await store.hosts()
        let differing = hosts.readingOtherBots
        let shown = hosts.count > 1 || hosts.contains(where: \.gone)
        let configured = Dictionary(await bots().map { ($0.name, $0) }) { first, _ in first }
        let page = IndexPage(
            title: "Kiln", bots: good.map { BotRowView($0, now: now, bot: configured[$0.state.name]) },
            hosts: shown ? hosts.map { HostView($0, now: now, differs: differing.contains($0.name)) } : [],
            hasHosts: shown, botsDiffer: !differing.isEmpty, broken: broken, hasBroken: !broken.isEmpty, hasBots: !good.isEmpty,
            bigscreen: bigscreen, refresh: bigscreen ? 15 : nil, generatedAt: Formatting.iso(now), notice: notice)
        return assets.render(page, bigscreen ? "bigscreen" : "index")
    }

    /// `text` as a page shows a log's tail: unnumbered (a tail's numbers are not known), its
    /// step headers in bold.
    static func tailHTML(_ text: String) -> String {
        LogText(text[...]).sections.map { section in
            var html = ""
            if !section.title.isEmpty {
                html += "<span class=\"line bold\">=== "
                LogHTML.escape(section.title, into: &html)
                html += "\n</span>"
            }
            return html + LogHTML.lines(section.lines, anchored: false)
        }.joined()
    }

    /// The tail as HTML; a completed integration's from `renderedTails` when it was rendered before.
    func renderedTail(_ tail: (text: String, truncated: Bool)?, of integration: Integration) async -> String {
        guard let tail else { return Self.tailHTML(integration.expired ? "(deleted by retention)" : "(no log yet)") }
        let key = "\(integration.id)@\(tail.text.utf8.count)"
        if integration.step == .completed, let html = await renderedTails.value(for: key) { return html }
        let html = Self.tailHTML(tail.text)
        if integration.step == .completed { await renderedTails.keep(html, for: key) }
        return html
    }

    /// What the page says when a Cancel reached an integration that had ended.
    static let alreadyEnded = "It had already ended when Cancel was pressed: nothing was canceled."

    /// What the page says when a re-run of it, pressed on a page that was out of date, could
    /// not be queued; nil when it could be now.
    static func rerunRefused(_ detail: IntegrationDetail, only: String) -> String? {
        guard let scope = Rerun.Scope(rawValue: only) else { return nil }
        do {
            _ = try Rerun.request(detail, only: scope)
            return nil
        } catch {
            return "Not run again: \(error.sentence)."
        }
    }

    func integrationPage(
        _ detail: IntegrationDetail, bisection: Bisection? = nil, actions csrf: String? = nil, notice: String? = nil
    ) async throws(StoreError) -> String {
        let now = clock.now
        let integration = detail.integration
        let base = "/bots/\(integration.bot)/integrations/\(integration.number)"
        let groups: [(IssueStatus, String)] = [(.new, "New"), (.unresolved, "Unresolved"), (.resolved, "Resolved")]
        let issueGroups = groups.compactMap { status, title -> IssueGroupView? in
            let issues = detail.issues.filter { $0.status == status }
            guard !issues.isEmpty else { return nil }
            return IssueGroupView(
                title: title, status: status.rawValue,
                issues: issues.map { issue in
                    IssueView(
                        type: issue.type.rawValue, check: issue.check?.rawValue, message: issue.message,
                        location: issue.file.map { file in issue.line.map { "\(file):\($0)" } ?? file },
                        introducedBy: issue.introducedBy.isEmpty
                            ? nil
                            : issue.introducedBy.map { "\($0.name) (\(Formatting.shortSHA($0.commit))\($0.bisected ? ", bisected" : ""))" }.joined(
                                separator: ", "),
                        cells: issue.cellsText)
                }, count: issues.count)
        }
        let testView = { (test: TestCase) in
            TestView(
                suite: test.suite, name: test.name, status: test.status.rawValue, duration: DurationText.prose(test.duration),
                message: test.status == .failed || test.status == .flaky ? test.message : nil,
                url: TestAddress.path(bot: integration.bot, suite: test.suite, name: test.name), cell: test.cell)
        }
        let cells = detail.cells.map { cell in
            CellView(
                name: cell.cell?.name ?? "?", result: cell.result?.rawValue ?? cell.step.rawValue, tone: IntegrationReport.tone(cell.result),
                toolchain: cell.toolchain ?? Matrix.defaultToolchain, version: cell.swiftVersion, host: cell.host,
                duration: cell.step == .completed
                    ? DurationText.prose(cell.duration) : cell.startedAt.map { DurationText.prose(now.timeIntervalSince($0)) } ?? "queued",
                reason: cell.reason?.sentence, logURL: base + "/log?cell=" + (cell.cell?.name ?? ""), workspace: cell.workspace?.sentence)
        }
        let failing = detail.tests.filter(\.counts).map(testView)
        let flaky = detail.tests.filter { $0.status == .flaky }.map(testView)
        let notRun = detail.tests.filter { $0.status == .notRun }.count
        let quarantined = detail.tests.filter { $0.status == .failed && $0.quarantined }.map(testView)
        let regressed = detail.issues.filter { $0.type == .performanceRegression && $0.status != .resolved }.map(\.message)
        let measurements = detail.tests.compactMap { test in
            test.measurement.map { measurement in
                let slower = measurement.regressed == true || regressed.contains { $0.hasPrefix("\(test.suite).\(test.name): ") }
                return MeasurementView(
                    suite: test.suite, name: test.name, url: TestAddress.path(bot: integration.bot, suite: test.suite, name: test.name),
                    value: measurement.text(measurement.median), baseline: measurement.baseline.map(measurement.text) ?? "none yet",
                    change: measurement.changeText ?? "—",
                    tone: slower ? "bad" : (measurement.change ?? 0) < 0 ? "good" : "")
            }
        }
        let tail = try await LogController.tail(of: integration, in: store)
        let tailHTML = await renderedTail(tail, of: integration)
        let bot = await bots().first { $0.name == integration.bot }
        var page = IntegrationPage(
            title: "\(integration.bot) #\(integration.number) · Kiln", bot: integration.bot, botURL: "/bots/\(integration.bot)",
            number: integration.number, report: IntegrationReport(detail, now: now), running: integration.step != .completed, host: integration.host,
            pullRequest: integration.pullRequest.map { PullRequestView($0, now: now) }, commit: integration.commit ?? "not yet known",
            branch: integration.branch, queuedAt: Formatting.iso(integration.queuedAt), startedAt: Formatting.iso(integration.startedAt),
            summary: IntegrationSummaryView(integration, now: now),
            steps: detail.steps.map {
                StepView(name: $0.name.rawValue, duration: DurationText.prose($0.duration), url: base + "/steps#step-" + $0.name.rawValue)
            },
            commits: detail.commits.map {
                CommitView(
                    sha: $0.sha, shortSHA: Formatting.shortSHA($0.sha), author: $0.author, email: $0.email, date: Formatting.iso($0.date),
                    subject: $0.subject)
            }, hasCommits: !detail.commits.isEmpty, issueGroups: issueGroups, hasIssues: !issueGroups.isEmpty, failingTests: failing,
            hasFailingTests: !failing.isEmpty, flakyTests: flaky,
            flakyText: flaky.isEmpty ? nil : "\(flaky.count) flaky test\(flaky.count == 1 ? "" : "s")", quarantinedFailures: quarantined,
            quarantinedText: quarantined.isEmpty ? nil : "\(quarantined.count) quarantined failure\(quarantined.count == 1 ? "" : "s")",
            notRunText: notRun == 0 ? nil : "\(CountText.of(notRun, "test")) not run (fail-fast)",
            assets: detail.assets.map {
                AssetView(
                    name: $0.name, url: AssetController.path(bot: integration.bot, number: integration.number, name: $0.name),
                    size: ByteCount.text($0.size), sha256: $0.sha256)
            }, hasAssets: !detail.assets.isEmpty, measurements: measurements, hasMeasurements: !measurements.isEmpty,
            tests: detail.tests.prefix(Self.testsShown).map(testView), hasTests: !detail.tests.isEmpty,
            testsShown: min(detail.tests.count, Self.testsShown), testsTotal: detail.tests.count, testsCut: detail.tests.count > Self.testsShown,
            triggers: detail.triggers.map {
                TriggerView(
                    name: $0.name, phase: $0.phase.rawValue, exitStatus: $0.exitStatus, failed: $0.exitStatus != 0,
                    duration: DurationText.prose($0.duration))
            }, hasTriggers: !detail.triggers.isEmpty,
            logTailHTML: tailHTML,
            logTruncated: tail?.truncated ?? false, logURL: base + "/log", expired: integration.expired,
            bisection: bisection.map { BisectionView($0, bot: integration.bot) }, cells: cells, hasCells: !cells.isEmpty,
            testGrid: TestGridView(tests: detail.tests, cells: cells.map(\.name)) {
                TestAddress.path(bot: integration.bot, suite: $0.suite, name: $0.name)
            },
            dependencies: detail.dependencies.map {
                DependencyView(
                    identity: $0.identity, version: $0.version ?? Formatting.shortSHA($0.revision), location: $0.location, mirror: $0.mirror.rawValue,
                    tone: $0.mirror == .unavailable ? "bad" : "")
            }, hasDependencies: !detail.dependencies.isEmpty, csrf: csrf,
            cancelURL: csrf != nil && integration.step != .completed ? "/api\(base)/cancel" : nil, workspace: integration.workspace?.sentence)
        page.stepsURL = base + "/steps"
        if csrf != nil, integration.step == .awaitingApproval { page.approveURL = "/api\(base)/approve" }
        page.patchCoverage = integration.patchCoverage?.sentence
        page.patchFiles = PatchFileView.views(of: integration.patchCoverage, bot: integration.bot, integration: integration.number)
        page.notice = notice
        if integration.isRunning { page.progress = integration.progress?.sentence }
        page.failures = await Failures.views(of: detail, bot: bot, source: source, kept: sourceFiles)
        page.hasFailures = !page.failures.isEmpty
        if csrf != nil, (try? Rerun.request(detail, only: .all)) != nil {
            page.rerunURL = "/api/bots/\(integration.bot)/integrations"
            page.rerunFailed = (try? Rerun.request(detail, only: .failed)) != nil
        }
        let head = detail.commits.first { $0.sha == integration.commit }
        page.subject = integration.subject ?? head?.subject
        page.author = integration.author ?? head?.author
        page.commitURL = bot.flatMap { bot in integration.commit.flatMap { SourceLink.commit($0, bot: bot) } }
        page.rerunOf = integration.rerunOf.map { RerunView(text: $0.sentence, url: "/bots/\(integration.bot)/integrations/\($0.number)") }
        return assets.render(page, "integration")
    }
}
