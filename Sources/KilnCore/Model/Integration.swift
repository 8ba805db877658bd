import Foundation

/// One numbered run of a bot, as the store holds it.
public struct Integration: Sendable, Hashable {
    /// The store's key; the public identity is `bot` and `number`.
    public var id: Int64
    public var bot: String
    /// 1, 2, 3… per bot, never reused.
    public var number: Int
    public var cause: IntegrationCause
    /// The commit to integrate; nil until known (a manual trigger integrates the branch head).
    public var commit: String?
    public var branch: String
    public var step: IntegrationStep
    /// Nil until completed.
    public var result: IntegrationResult?
    public var queuedAt: Date
    public var startedAt: Date?
    public var endedAt: Date?
    /// Nil until completed.
    public var summary: Summary?
    /// Why it ended as it did, for internal errors, cancellations and timeouts.
    public var reason: String?
    /// Retention removed its log, issues and tests; the summary stays.
    public var expired: Bool
    /// The host that claimed it (`host:` in kiln.yml); nil while queued.
    public var host: String?
    /// The process that claimed it (`ProcessOwner`): how a later process tells whether it is gone.
    public var owner: String?
    /// The pull request it integrates; nil for an integration of the branch.
    public var pullRequest: PullRequest?

    public init(
        id: Int64, bot: String, number: Int, cause: IntegrationCause, commit: String?, branch: String, step: IntegrationStep = .pending,
        result: IntegrationResult? = nil, queuedAt: Date, startedAt: Date? = nil, endedAt: Date? = nil, summary: Summary? = nil,
        reason: String? = nil, expired: Bool = false, host: String? = nil, owner: String? = nil, pullRequest: PullRequest? = nil
    ) {
        self.id = id
        self.bot = bot
        self.number = number
        self.cause = cause
        self.commit = commit
        self.branch = branch
        self.step = step
        self.result = result
        self.queuedAt = queuedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.summary = summary
        self.reason = reason
        self.expired = expired
        self.host = host
        self.owner = owner
        self.pullRequest = pullRequest
    }

    /// Seconds from start to end; nil until it has both.
    public var duration: TimeInterval? {
        guard let startedAt, let endedAt else { return nil }
        return endedAt.timeIntervalSince(startedAt)
    }

    public var isRunning: Bool { step != .pending && step != .completed }
}

/// The counts of a completed integration, each with its change against the previous completed
/// integration of the same bot (nil when there is none, or the figure is unknown on either side).
///
/// Its JSON is the API's `summary`: `{errors, warnings, tests, testFailures, coverage}`, each with
/// its `…Change`, absent figures as `null`.
public struct Summary: Sendable, Hashable, Encodable {
    public var errors: Int
    public var warnings: Int
    public var tests: Int
    public var testFailures: Int
    /// Percent of the package's own lines covered; nil when coverage was not measured.
    @Nullable public var coverage: Double?
    @Nullable public var errorsChange: Int?
    @Nullable public var warningsChange: Int?
    @Nullable public var testsChange: Int?
    @Nullable public var testFailuresChange: Int?
    @Nullable public var coverageChange: Double?

    public init(
        errors: Int = 0, warnings: Int = 0, tests: Int = 0, testFailures: Int = 0, coverage: Double? = nil, errorsChange: Int? = nil,
        warningsChange: Int? = nil, testsChange: Int? = nil, testFailuresChange: Int? = nil, coverageChange: Double? = nil
    ) {
        self.errors = errors
        self.warnings = warnings
        self.tests = tests
        self.testFailures = testFailures
        self.coverage = coverage
        self.errorsChange = errorsChange
        self.warningsChange = warningsChange
        self.testsChange = testsChange
        self.testFailuresChange = testFailuresChange
        self.coverageChange = coverageChange
    }

    /// This summary with its changes computed against `previous`.
    public func changed(from previous: Summary?) -> Summary {
        var summary = self
        guard let previous else { return summary }
        summary.errorsChange = errors - previous.errors
        summary.warningsChange = warnings - previous.warnings
        summary.testsChange = tests - previous.tests
        summary.testFailuresChange = testFailures - previous.testFailures
        if let coverage, let before = previous.coverage { summary.coverageChange = coverage - before }
        return summary
    }

    /// Coverage as pages and mails write it: `87.5 %`; nil when it was not measured.
    public var coverageText: String? {
        coverage.map { String(format: "%.1f %%", $0) }
    }
}

/// One step an integration went through, and how long it took.
public struct StepTiming: Sendable, Hashable {
    public var name: IntegrationStep
    public var startedAt: Date
    /// Nil while the step runs.
    public var duration: TimeInterval?

    public init(name: IntegrationStep, startedAt: Date, duration: TimeInterval? = nil) {
        self.name = name
        self.startedAt = startedAt
        self.duration = duration
    }
}
