import Foundation
import KilnCore
import KilnStore

// What the templates in Web/ render. Stored properties only: Mustache reads them by reflection.
// Every String here is escaped by `{{…}}` in the templates; only `chart.svgPoints` and numbers
// built by Kiln itself go into attributes.

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

    init(_ integration: Integration, now: Date) {
        number = integration.number
        url = "/bots/\(integration.bot)/integrations/\(integration.number)"
        result = integration.result?.rawValue ?? integration.step.rawValue
        tone = Formatting.tone(integration.result)
        cause = integration.cause.rawValue
        commit = Formatting.shortSHA(integration.commit)
        ago = Formatting.ago(integration.endedAt ?? integration.startedAt ?? integration.queuedAt, now: now)
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

    init(_ pullRequest: PullRequest, latest: Integration? = nil, now: Date = Date()) {
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
        ago = Formatting.ago(problem.at, now: now)
    }
}

struct ActiveView {
    var number: Int
    var url: String
    var step: String
    var elapsed: String
    var commit: String

    init(_ integration: Integration, now: Date) {
        number = integration.number
        url = "/bots/\(integration.bot)/integrations/\(integration.number)"
        step = integration.step.rawValue
        let since = integration.startedAt ?? integration.queuedAt
        elapsed = DurationText.prose(now.timeIntervalSince(since))
        commit = Formatting.shortSHA(integration.commit)
    }
}

struct BotRowView {
    var name: String
    var url: String
    var repository: String
    var branch: String
    var status: String
    var last: IntegrationSummaryView?
    var running: ActiveView?
    var queued: [ActiveView]
    var queuedCount: Int
    var isQueued: Bool

    init(_ overview: BotOverview, now: Date) {
        name = overview.state.name
        url = "/bots/\(overview.state.name)"
        repository = overview.state.repository
        branch = overview.state.branch
        status = overview.status.rawValue
        last = overview.last.map { IntegrationSummaryView($0, now: now) }
        running = overview.running.first.map { ActiveView($0, now: now) }
        queued = overview.queued.map { ActiveView($0, now: now) }
        queuedCount = overview.queued.count
        isQueued = !overview.queued.isEmpty
    }
}

struct BrokenBotView {
    var name: String
    var file: String
    var problems: [String]
}

struct IndexPage {
    var title = "Kiln"
    var bots: [BotRowView]
    /// The hosts, when there is more than one or one is gone; empty otherwise.
    var hosts: [HostView]
    var hasHosts: Bool
    /// Hosts read different bot files.
    var botsDiffer: Bool
    var broken: [BrokenBotView]
    var hasBroken: Bool
    var hasBots: Bool
    var bigscreen: Bool
    /// Seconds between refreshes of the wall display; nil for the normal page.
    var refresh: Int?
    var generatedAt: String
}

/// A host in the front page's hosts section.
struct HostView {
    var name: String
    var version: String
    var busy: Int
    var executors: Int
    var lastHeard: String
    var ago: String
    var gone: Bool
    var differs: Bool

    init(_ host: HostRecord, now: Date, differs: Bool) {
        name = host.name
        version = host.version
        busy = host.busy
        executors = host.executors
        lastHeard = Formatting.iso(host.lastHeard)
        ago = Formatting.ago(host.lastHeard, now: now)
        gone = host.gone
        self.differs = differs
    }
}

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

    /// A line over `values` (oldest first), scaled to the chart; nil values are skipped.
    init(title: String, values: [Double?], format: (Double) -> String) {
        self.title = title
        let present = values.compactMap { $0 }
        empty = present.isEmpty
        let low = present.min() ?? 0
        let high = present.max() ?? 0
        self.low = present.isEmpty ? "" : format(low)
        self.high = present.isEmpty ? "" : format(high)
        latest = present.last.map(format) ?? "—"
        let span = high - low
        let step = values.count > 1 ? Double(Self.width - 4) / Double(values.count - 1) : 0
        var points: [String] = []
        for (index, value) in values.enumerated() {
            guard let value else { continue }
            let x = 2 + Double(index) * step
            let y = span > 0 ? 2 + (1 - (value - low) / span) * Double(Self.height - 4) : Double(Self.height) / 2
            points.append(String(format: "%.1f,%.1f", x, y))
        }
        svgPoints = points.joined(separator: " ")
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
    var charts: [TrendChart]
    var olderURL: String?
    var newestURL: String?
    var badgeURL: String
    var pullRequests: [PullRequestView]
    var hasPullRequests: Bool
    var statusProblem: StatusProblemView?
}

struct StepView {
    var name: String
    var duration: String
}

struct CommitView {
    var sha: String
    var shortSHA: String
    var author: String
    var email: String
    var date: String
    var subject: String
}

struct IssueView {
    var type: String
    var message: String
    var location: String?
    var introducedBy: String?
}

struct IssueGroupView {
    var title: String
    var status: String
    var issues: [IssueView]
    var count: Int
}

struct TestView {
    var suite: String
    var name: String
    var status: String
    var duration: String
}

struct TriggerView {
    var name: String
    var phase: String
    var exitStatus: Int
    var failed: Bool
    var duration: String
}

struct IntegrationPage {
    var title: String
    var bot: String
    var botURL: String
    var number: Int
    var result: String
    var tone: String
    var running: Bool
    var cause: String
    /// The host that ran it; nil while queued.
    var host: String?
    var pullRequest: PullRequestView?
    var commit: String
    var branch: String
    var reason: String?
    var queuedAt: String
    var startedAt: String
    var duration: String
    var summary: IntegrationSummaryView
    var steps: [StepView]
    var commits: [CommitView]
    var hasCommits: Bool
    var issueGroups: [IssueGroupView]
    var hasIssues: Bool
    var failingTests: [TestView]
    var hasFailingTests: Bool
    var tests: [TestView]
    var hasTests: Bool
    var testsShown: Int
    var testsTotal: Int
    var testsCut: Bool
    var triggers: [TriggerView]
    var hasTriggers: Bool
    var logTail: String
    var logTruncated: Bool
    var logURL: String
    var expired: Bool
}
