import Foundation
import KilnCore

/// The queue and the life of an integration: bots as loaded, queueing, claims, steps,
/// completion, requests to stop, recovery of this host's abandoned integrations, retention.
/// Every write about a claimed integration is refused (`StoreError.claimLost`) once the claim
/// no longer holds.
///
/// Threading and errors as `Store` says.
public protocol IntegrationQueue: Sendable {
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

    /// Keeps the logs, issues and tests of the last `keep` integrations of `bot` (of every bot
    /// when nil); older ones keep their summary and are marked expired. Returns how many expired.
    func applyRetention(keep: Int, bot: String?) async throws(StoreError) -> Int
}
