import Foundation
import KilnCore

/// Everything Kiln remembers: bots as last loaded, integrations and their history, the queue, the
/// mail outbox and webhook deliveries. SQLite (`SQLiteStore`) is the embedded default; the same
/// interface is meant to be satisfied by PostgreSQL for several hosts sharing one queue.
///
/// Threading: every method may be called from any task or process at any time. Each method is one
/// transaction: it sees and leaves the store consistent, and the queue's transitions (queue,
/// coalesce, claim, complete) are atomic, with no state kept in memory between calls.
///
/// Errors: every method throws `StoreError` for infrastructure faults only (the file cannot be
/// opened or written); "nothing found" is an empty or nil result, not an error.
public protocol Store: Sendable {
    /// Records the bots as just loaded; bots whose files are gone are kept, marked not loaded.
    func syncBots(_ bots: [BotState], now: Date) throws(StoreError)

    /// Queues an integration, or coalesces into the bot's queued one (moving it to `commit`).
    /// With `cancelSuperseded`, an integration running for another commit is asked to stop.
    func enqueue(_ request: QueueRequest, now: Date) throws(StoreError) -> QueueOutcome

    /// Moves the oldest queued integration whose bot has none running to `checkout`, owned by
    /// `owner`; nil when there is nothing to run. One statement: safe for several executors.
    func claimNext(owner: String, now: Date) throws(StoreError) -> Integration?

    /// Claims one particular queued integration (for `kiln run`), if its bot has none running;
    /// nil when it is not queued any more or must wait.
    func claim(_ id: Int64, owner: String, now: Date) throws(StoreError) -> Integration?

    /// Records that the integration entered `step` (ending the previous step's timing).
    func advance(_ id: Int64, to step: IntegrationStep, now: Date) throws(StoreError)

    /// Records the commit a running integration is checking out.
    func setCommit(_ id: Int64, commit: String) throws(StoreError)

    /// Ends an integration with its outcome: marks issues new, unresolved or resolved against the
    /// previous one, computes the summary's changes, and stores issues, tests and commits.
    @discardableResult
    func complete(_ id: Int64, outcome: IntegrationOutcome, now: Date) throws(StoreError) -> Integration

    /// Asks a running integration to stop; its executor sees it through `cancelRequests`.
    func requestCancel(_ id: Int64, reason: String) throws(StoreError)

    /// Running integrations of `owner` that someone asked to stop, with the reason.
    func cancelRequests(owner: String) throws(StoreError) -> [(id: Int64, reason: String)]

    /// Ends integrations left running by processes that are gone as `internal-error`, with the
    /// reason appended to their logs; returns them.
    func recoverAbandoned(isAlive: (String) -> Bool, now: Date) throws(StoreError) -> [Integration]

    /// Keeps the logs, issues and tests of the last `keep` integrations of `bot` (of every bot
    /// when nil); older ones keep their summary and are marked expired. Returns how many expired.
    func applyRetention(keep: Int, bot: String?) throws(StoreError) -> Int

    /// Every bot with its last completed, running and queued integrations.
    func botOverviews() throws(StoreError) -> [BotOverview]

    /// A bot's integrations, newest first, numbered below `before` when given.
    func integrations(bot: String, limit: Int, before: Int?) throws(StoreError) -> [Integration]

    /// One integration with its steps, commits, issues and tests.
    func integration(bot: String, number: Int) throws(StoreError) -> IntegrationDetail?
}

/// A bot as the registry last loaded it.
public struct BotState: Sendable, Hashable {
    public var name: String
    public var file: String
    /// Redacted repository URL.
    public var repository: String
    public var branch: String
    /// `file:line:col: error: …` lines; empty when the file is valid.
    public var problems: [String]

    public init(name: String, file: String, repository: String, branch: String, problems: [String] = []) {
        self.name = name
        self.file = file
        self.repository = repository
        self.branch = branch
        self.problems = problems
    }
}

public struct QueueRequest: Sendable, Hashable {
    public var bot: String
    public var cause: IntegrationCause
    public var commit: String?
    public var branch: String
    public var cancelSuperseded: Bool

    public init(bot: String, cause: IntegrationCause, commit: String? = nil, branch: String, cancelSuperseded: Bool = true) {
        self.bot = bot
        self.cause = cause
        self.commit = commit
        self.branch = branch
        self.cancelSuperseded = cancelSuperseded
    }
}

public struct QueueOutcome: Sendable, Hashable {
    /// The queued integration: a new one, or the one this request was coalesced into.
    public var integration: Integration
    public var coalesced: Bool
    /// Running integrations asked to stop because this commit superseded theirs.
    public var superseded: [Int64]
}

/// What an integration produced.
public struct IntegrationOutcome: Sendable {
    public var result: IntegrationResult
    public var reason: String?
    public var errors: Int
    public var warnings: Int
    public var tests: [TestCase]
    public var coverage: Double?
    /// Issues found, without status: the store marks them against the previous integration.
    public var issues: [IntegrationIssue]
    public var commits: [Commit]
    public var triggers: [TriggerRun]

    public init(
        result: IntegrationResult, reason: String? = nil, errors: Int = 0, warnings: Int = 0, tests: [TestCase] = [], coverage: Double? = nil,
        issues: [IntegrationIssue] = [], commits: [Commit] = [], triggers: [TriggerRun] = []
    ) {
        self.result = result
        self.reason = reason
        self.errors = errors
        self.warnings = warnings
        self.tests = tests
        self.coverage = coverage
        self.issues = issues
        self.commits = commits
        self.triggers = triggers
    }
}

/// A script trigger that ran.
public struct TriggerRun: Sendable, Hashable {
    public var name: String
    public var phase: TriggerPhase
    public var exitStatus: Int
    public var duration: Double

    public init(name: String, phase: TriggerPhase, exitStatus: Int, duration: Double) {
        self.name = name
        self.phase = phase
        self.exitStatus = exitStatus
        self.duration = duration
    }
}

/// A bot with what the front page shows of it.
public struct BotOverview: Sendable, Hashable {
    public var state: BotState
    /// False when its file is gone; its history is kept.
    public var loaded: Bool
    public var last: Integration?
    public var running: [Integration]
    public var queued: [Integration]
}

/// One integration with everything recorded about it.
public struct IntegrationDetail: Sendable, Hashable {
    public var integration: Integration
    public var steps: [StepTiming]
    public var commits: [Commit]
    public var issues: [IntegrationIssue]
    public var tests: [TestCase]
    public var triggers: [TriggerRun]
}

/// Why the store could not do what was asked.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case query(what: String, reason: String)
    case notFound(what: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the database \(path): \(reason) (check that its directory exists and is writable)"
        case .query(let what, let reason): "\(what) failed: \(reason)"
        case .notFound(let what): "\(what) does not exist"
        }
    }
}

/// What the webhook endpoints and `/metrics` need of the store.
public protocol WebhookStore: Sendable {
    /// Records a webhook delivery and queues its integrations in one transaction: a delivery that
    /// is answered has its integrations queued, and a queued integration's delivery is recorded.
    func receiveWebhook(_ delivery: WebhookDelivery, queue requests: [QueueRequest], now: Date) throws(StoreError) -> [QueueOutcome]

    /// The latest deliveries, newest first.
    func webhookDeliveries(limit: Int) throws(StoreError) -> [WebhookDelivery]

    /// Totals for `/metrics`.
    func statistics(durationBuckets: [Double]) throws(StoreError) -> StoreStatistics
}

/// One webhook request as it was answered.
public struct WebhookDelivery: Sendable, Hashable {
    public var forge: String
    /// The forge's event name (`push`, `Push Hook`, `ping`), empty when it sent none.
    public var event: String
    /// Redacted repository URL from the payload.
    public var repository: String?
    public var branch: String?
    public var commit: String?
    /// `queued`, `ignored`, `unauthorized`, `malformed` or `too-large`.
    public var outcome: String
    public var statusCode: Int
    /// Why it was ignored or refused.
    public var detail: String?
    /// Integrations it reached (queued, or coalesced into): filled in when read back.
    public var integrations: [IntegrationReference]
    public var receivedAt: Date

    public init(
        forge: String, event: String, repository: String? = nil, branch: String? = nil, commit: String? = nil, outcome: String, statusCode: Int,
        detail: String? = nil, integrations: [IntegrationReference] = [], receivedAt: Date = Date()
    ) {
        self.forge = forge
        self.event = event
        self.repository = repository
        self.branch = branch
        self.commit = commit
        self.outcome = outcome
        self.statusCode = statusCode
        self.detail = detail
        self.integrations = integrations
        self.receivedAt = receivedAt
    }
}

/// A bot's integration by its public identity.
public struct IntegrationReference: Sendable, Hashable, Codable {
    public var bot: String
    public var number: Int

    public init(bot: String, number: Int) {
        self.bot = bot
        self.number = number
    }
}

/// Counts over everything stored, for `/metrics`. Each count only grows (retention keeps summaries).
public struct StoreStatistics: Sendable, Hashable {
    /// Completed integrations by result.
    public var integrationsByResult: [IntegrationResult: Int]
    public var queued: Int
    public var running: Int
    /// Completed integrations whose duration was at most each bucket's bound, in the buckets' order.
    public var durationBucketCounts: [Int]
    public var durationCount: Int
    public var durationSum: Double
    /// Webhook deliveries by outcome.
    public var webhooksByOutcome: [String: Int]
    /// Mails in the outbox by state (`queued`, `sent`, `failed`).
    public var outboxByState: [String: Int]
}

/// The mail outbox and what mail is composed from.
public protocol MailStore: Sendable {
    /// Adds a mail to the outbox unless one with its dedupe key is there already; true when added.
    @discardableResult
    func queueMail(_ mail: OutgoingMail, now: Date) throws(StoreError) -> Bool

    /// Queued mails whose next attempt is due, oldest first.
    func dueMails(now: Date, limit: Int) throws(StoreError) -> [QueuedMail]

    /// When the next queued mail is due; nil when the outbox has none queued.
    func nextMailAttempt() throws(StoreError) -> Date?

    /// Records a mail as delivered.
    func mailSent(_ id: Int64, now: Date) throws(StoreError)

    /// Records a failed attempt: tried again at `retryAt`, or failed for good when it is nil.
    func mailFailed(_ id: Int64, error: String, retryAt: Date?, now: Date) throws(StoreError)

    /// The outbox for `kiln status`: counts by state and the mails not delivered yet.
    func outbox(limit: Int) throws(StoreError) -> Outbox

    /// Completed integrations whose mail has not been composed yet, oldest first.
    func integrationsToNotify(limit: Int) throws(StoreError) -> [Integration]

    /// Records that the mail of these integrations was composed (and queued).
    func markNotified(_ ids: [Int64], now: Date) throws(StoreError)

    /// Marks every completed integration notified at once (a server without mail); returns how many.
    @discardableResult
    func markAllNotified(now: Date) throws(StoreError) -> Int

    /// The bot's last completed integration before `number` that was not canceled.
    func previousResult(bot: String, before number: Int) throws(StoreError) -> Integration?

    /// What a digest says about a bot over `[from, to)`.
    func digest(bot: String, from: Date, to: Date) throws(StoreError) -> DigestFigures
}

/// A mail to put in the outbox.
public struct OutgoingMail: Sendable, Hashable {
    /// Same key, same mail: a second one with this key is not queued.
    public var dedupeKey: String
    public var bot: String?
    public var integrationId: Int64?
    public var recipients: [String]
    public var subject: String
    /// The whole message as sent.
    public var message: [UInt8]

    public init(dedupeKey: String, bot: String? = nil, integrationId: Int64? = nil, recipients: [String], subject: String, message: [UInt8]) {
        self.dedupeKey = dedupeKey
        self.bot = bot
        self.integrationId = integrationId
        self.recipients = recipients
        self.subject = subject
        self.message = message
    }
}

/// A mail in the outbox.
public struct QueuedMail: Sendable, Hashable {
    public var id: Int64
    public var dedupeKey: String?
    public var recipients: [String]
    public var subject: String
    public var message: [UInt8]
    /// `queued`, `sent` or `failed`.
    public var state: String
    public var attempts: Int
    public var createdAt: Date
    public var nextAttemptAt: Date
    public var lastError: String?
}

public struct Outbox: Sendable, Hashable {
    public var queued: Int
    public var sent: Int
    public var failed: Int
    /// Mails queued or failed, newest first.
    public var undelivered: [QueuedMail]
}

/// A bot's integrations over a period, for daily and weekly digests.
public struct DigestFigures: Sendable, Hashable {
    public var results: [IntegrationResult: Int]
    public var count: Int
    /// Seconds; nil without completed integrations.
    public var averageDuration: Double?
    public var issuesIntroduced: Int
    public var issuesResolved: Int
    /// The slowest tests of the period's last integration with tests, slowest first.
    public var slowestTests: [TestCase]
    /// The bot's last completed integration up to the end of the period.
    public var last: Integration?
}
