import Foundation
import KilnCore

/// Everything Kiln remembers: bots as last loaded, integrations and their history, the queue,
/// logs, the mail outbox and webhook deliveries. SQLite (`SQLiteStore`) is the embedded default;
/// `StoreLocation.open` picks the engine, and no caller sees which one it got.
///
/// Threading: every method may be called from any task, and by several processes (or hosts) at
/// once. Each method is one transaction: it sees and leaves the store consistent, and the queue's
/// transitions (queue, coalesce, claim, complete) are atomic, with no state kept in memory
/// between calls.
///
/// Errors: every method throws `StoreError` for infrastructure faults only (the database cannot
/// be reached or written); "nothing found" is an empty or nil result, not an error.
public protocol Store: Sendable {
    /// Does the store's background work until the task is canceled: on PostgreSQL, hearing the
    /// other hosts' changes and sending this host's logs. Operations work without it; `changes()`
    /// from other hosts and logs kept in the database need it.
    func run() async

    /// A new subscription to the store's changes, from this process or any other: each element
    /// says "something changed, look again". The page cache drops stale pages on it. A busy
    /// subscriber hears of several changes once. It ends when the subscriber stops iterating.
    func changes() -> AsyncStream<Void>

    /// Like `changes()`, for changes of the queue only (queued, coalesced, completed, asked to
    /// stop, bots loaded): idle schedulers wake on them to claim, and not on every claim, step,
    /// log or mail of every host.
    func queueChanges() -> AsyncStream<Void>

    /// Like `changes()`, for requests that running integrations stop only (`requestCancel`, a
    /// superseding or closing request, a recovery): busy schedulers wake on them to look at
    /// `stopRequests`.
    func stopChanges() -> AsyncStream<Void>

    /// Records the bots as just loaded; bots whose files are gone are kept, marked not loaded.
    func syncBots(_ bots: [BotState], now: Date) async throws(StoreError)

    /// Queues an integration, or coalesces into the bot's queued one (moving it to `commit`).
    /// With `cancelSuperseded`, an integration running for another commit is asked to stop.
    func enqueue(_ request: QueueRequest, now: Date) async throws(StoreError) -> QueueOutcome

    /// Moves the oldest queued integration whose bot has none running to `checkout`, owned by
    /// `owner` (`ProcessOwner`, whose first word is the host); nil when there is nothing to run.
    /// Safe for several executors, processes and hosts.
    func claimNext(owner: String, now: Date) async throws(StoreError) -> Claim?

    /// Claims one particular queued integration (for `kiln run`), if its bot has none running;
    /// nil when it is not queued any more or must wait.
    func claim(_ id: Int64, owner: String, now: Date) async throws(StoreError) -> Claim?

    /// Records that the integration entered `step` (ending the previous step's timing).
    /// Throws `claimLost` when the claim no longer holds, as every write about a claimed integration does.
    func advance(_ claim: Claim, to step: IntegrationStep, now: Date) async throws(StoreError)

    /// Records the commit a running integration is checking out.
    func setCommit(_ claim: Claim, commit: String) async throws(StoreError)

    /// Ends an integration with its outcome: marks issues new, unresolved or resolved against the
    /// previous one, computes the summary's changes, and stores issues, tests and commits.
    @discardableResult
    func complete(_ claim: Claim, outcome: IntegrationOutcome, now: Date) async throws(StoreError) -> Integration

    /// Asks a running integration to stop; its owner hears of it through `changes()` and
    /// `stopRequests(for:)`.
    func requestCancel(_ id: Int64, reason: String) async throws(StoreError)

    /// Which of `claims` must stop: those someone asked to stop, and those whose claim was lost
    /// (another host ended them, taking this one as gone).
    func stopRequests(for claims: [Claim]) async throws(StoreError) -> [CancelRequest]

    /// Ends integrations left running by processes of this host that are gone as `internal-error`,
    /// with the reason appended to their logs; returns them.
    func recoverAbandoned(isAlive: @Sendable (String) -> Bool, now: Date) async throws(StoreError) -> [Integration]

    // MARK: Hosts

    /// Records that `host` is alive, on the database's clock; its lease runs from now. Returns
    /// whether `recoverLostHosts` has something to do: a silent host's integrations to end, or a
    /// host gone long enough to forget.
    @discardableResult
    func heartbeat(_ host: HostReport) async throws(StoreError) -> Bool

    /// Every host that has reported, by name.
    func hosts() async throws(StoreError) -> [HostRecord]

    /// Ends the running integrations of hosts whose lease ran out as `internal-error` (naming the
    /// host and when it was last heard) and queues each one's commit again, once; returns the
    /// ended integrations.
    func recoverLostHosts(now: Date) async throws(StoreError) -> [Integration]

    /// Takes or keeps the lease `name` for `holder` for `duration` on the database's clock; true
    /// while `holder` holds it. What must happen once across hosts (polls, schedules) runs on
    /// the holder only.
    func holdLease(_ name: String, holder: String, for duration: Duration) async throws(StoreError) -> Bool

    /// Keeps the logs, issues and tests of the last `keep` integrations of `bot` (of every bot
    /// when nil); older ones keep their summary and are marked expired. Returns how many expired.
    func applyRetention(keep: Int, bot: String?) async throws(StoreError) -> Int

    /// Every bot with its last completed, running and queued integrations.
    func botOverviews() async throws(StoreError) -> [BotOverview]

    /// A bot's integrations, newest first, numbered below `before` when given.
    func integrations(bot: String, limit: Int, before: Int?) async throws(StoreError) -> [Integration]

    /// One integration with its steps, commits, issues and tests.
    func integration(bot: String, number: Int) async throws(StoreError) -> IntegrationDetail?

    /// The tests (at most `limit`) that `bot`'s last completed branch integration ran under
    /// quarantine, each with its last `results` results.
    func quarantinedTests(bot: String, limit: Int, results: Int) async throws(StoreError) -> [TestHistory]

    /// The bisection started by integration `integrationID`, if any.
    func bisection(of integrationID: Int64) async throws(StoreError) -> Bisection?

    /// The bisection numbered `id` (a bisect integration's `bisectionID`) and the number of the
    /// integration it bisects.
    func bisection(id: Int64) async throws(StoreError) -> (bisection: Bisection, bisected: Int)?

    /// One test's results in the last `limit` integrations of `bot`'s branch, newest first.
    func testHistory(bot: String, suite: String, name: String, limit: Int) async throws(StoreError) -> TestHistory

    /// The integration of `bot` numbered below `number` (below none when nil) that `kind` compares with.
    func predecessor(_ kind: Predecessor, bot: String, before number: Int?) async throws(StoreError) -> Integration?

    /// The pull requests of `bot` the forge told of (the open ones only, unless `includeClosed`),
    /// newest first, each with its latest integration.
    func pullRequests(bot: String, includeClosed: Bool) async throws(StoreError) -> [PullRequestOverview]

    /// Where this host keeps the log file of an integration: on SQLite the log itself, on
    /// PostgreSQL a local copy (what scripts read as `KILN_LOG`); nil when there is none.
    func logLocation(bot: String, number: Int) -> String?

    /// Where the log of a claimed integration goes besides its file, as it is written: nil when
    /// the file is the log. Writes after the claim was lost are dropped.
    func logSink(for claim: Claim) -> (any LogSink)?

    /// A change of an integration's log: wakes followers of live logs (on every host).
    func logChanges() -> AsyncStream<Void>

    /// Up to `limit` bytes of an integration's log from byte `offset`; nil when it has no log.
    func readLog(bot: String, number: Int, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]?

    /// The size of an integration's log in bytes; nil when it has no log.
    func logSize(bot: String, number: Int) async throws(StoreError) -> Int?

    /// Keeps `asset`, whose bytes are the file at `path`, with the integration `claim` holds,
    /// replacing one of the same name; refused once the claim is lost.
    func storeAsset(_ asset: Asset, from path: String, for claim: Claim) async throws(StoreError)

    /// An integration's asset by name; nil when it has none of that name (or it expired).
    func asset(bot: String, number: Int, name: String) async throws(StoreError) -> Asset?

    /// Up to `limit` bytes of an asset from byte `offset`.
    func readAsset(bot: String, number: Int, name: String, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]

    /// Where this host keeps an asset's bytes as a file (SQLite), for streaming it; nil where
    /// they are in the database.
    func assetLocation(bot: String, number: Int, name: String) -> String?

    /// The number of the bot's newest branch integration with a result in `results` that kept
    /// an asset named `name`.
    func latestAsset(bot: String, name: String, results: Set<IntegrationResult>) async throws(StoreError) -> Int?

    // MARK: Webhooks and /metrics

    /// Records a webhook delivery, queues its integrations and closes its pull requests in one
    /// transaction: a delivery that is answered has its integrations queued (or stopped), and a
    /// queued integration's delivery is recorded.
    func receiveWebhook(
        _ delivery: WebhookDelivery, queue requests: [QueueRequest], close closings: [PullRequestClosing], now: Date
    ) async throws(StoreError) -> WebhookReceipt

    /// The latest deliveries, newest first.
    func webhookDeliveries(limit: Int) async throws(StoreError) -> [WebhookDelivery]

    /// Totals for `/metrics`.
    func statistics(durationBuckets: [Double]) async throws(StoreError) -> StoreStatistics

    // MARK: The mail outbox, and what mail is composed from

    /// Adds a mail to the outbox unless one with its dedupe key is there already; true when added.
    @discardableResult
    func queueMail(_ mail: OutgoingMail, now: Date) async throws(StoreError) -> Bool

    /// Claims queued mails whose next attempt is due, oldest first: each is not due again for
    /// `MailClaim.duration`, so that of several hosts only one sends it; `mailSent` or
    /// `mailFailed` then records the attempt.
    func dueMails(now: Date, limit: Int) async throws(StoreError) -> [QueuedMail]

    /// When the next queued mail is due; nil when the outbox has none queued.
    func nextMailAttempt() async throws(StoreError) -> Date?

    /// Records a mail as delivered.
    func mailSent(_ id: Int64, now: Date) async throws(StoreError)

    /// Records a failed attempt: tried again at `retryAt`, or failed for good when it is nil.
    func mailFailed(_ id: Int64, error: String, retryAt: Date?, now: Date) async throws(StoreError)

    /// The outbox for `kiln status`: counts by state and the mails not delivered yet.
    func outbox(limit: Int) async throws(StoreError) -> Outbox

    /// Completed integrations whose mail has not been composed yet, oldest first.
    func integrationsToNotify(limit: Int) async throws(StoreError) -> [Integration]

    /// Records that the mail of these integrations was composed (and queued).
    func markNotified(_ ids: [Int64], now: Date) async throws(StoreError)

    /// Marks every completed integration notified at once (a server without mail); returns how many.
    @discardableResult
    func markAllNotified(now: Date) async throws(StoreError) -> Int

    /// What a digest says about a bot over `[from, to)`.
    func digest(bot: String, from: Date, to: Date) async throws(StoreError) -> DigestFigures

    // MARK: Commit statuses
    //
    // The commit statuses' outbox, and what statuses are composed from. Like mail: each
    // integration's statuses are composed once across hosts (`queueStatuses` is a compare-and-set
    // on the stage last composed), and claimed before they are sent.

    /// Integrations of `bots` queued since `since` whose status lags: never composed, composed for
    /// an earlier stage, or for another commit. Oldest first.
    func integrationsAwaitingStatus(bots: [String], since: Date, limit: Int) async throws(StoreError) -> [StatusCandidate]

    /// Records that `candidate`'s status was composed up to `stage` for `commit`, and queues
    /// `statuses`, in one transaction; false (queueing nothing) when another process composed
    /// it meanwhile.
    @discardableResult
    func queueStatuses(
        _ statuses: [CommitStatus], for candidate: StatusCandidate, stage: StatusStage, commit: String, now: Date
    ) async throws(StoreError) -> Bool

    /// Claims due statuses, oldest first, none of which has an earlier status of the same
    /// commit and context still waiting: each forge hears a context's statuses in order. A
    /// claimed status is not due again for `MailClaim.duration`.
    func dueStatuses(now: Date, limit: Int) async throws(StoreError) -> [QueuedStatus]

    /// When the next queued status is due; nil when none is queued.
    func nextStatusAttempt() async throws(StoreError) -> Date?

    /// Records a status the forge took.
    func statusSent(_ id: Int64, responseCode: Int, now: Date) async throws(StoreError)

    /// Records a failed attempt: tried again at `retryAt`, or refused for good when it is nil.
    func statusFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError)

    /// The statuses of the last `limit` attempts, newest first (for tests and `kiln status`).
    func statuses(limit: Int) async throws(StoreError) -> [QueuedStatus]

    /// Per bot, the latest refusal, unless a status of the bot queued after it was delivered since.
    func statusProblems() async throws(StoreError) -> [StatusProblem]
}

extension Store {
    /// Records a push delivery and queues its integrations (`receiveWebhook(_:queue:close:now:)`).
    public func receiveWebhook(_ delivery: WebhookDelivery, queue requests: [QueueRequest], now: Date) async throws(StoreError) -> [QueueOutcome] {
        try await receiveWebhook(delivery, queue: requests, close: [], now: now).queued
    }
}

/// How long a claimed mail waits before another sender may take it: longer than any SMTP
/// attempt takes (libcurl's timeouts end one well within it).
public enum MailClaim {
    public static let duration: TimeInterval = 300
}
