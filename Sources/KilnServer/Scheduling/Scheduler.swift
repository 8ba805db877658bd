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
import KilnStore
import Logging
import ServiceLifecycle

/// Decides when bots integrate and runs their integrations on a bounded pool of executors.
///
/// - Bot files are reloaded within a second of any change in the bots directory.
/// - on-commit bots have their remote head polled at their `poll` interval; a new head queues an
///   integration (cause `poll`), coalescing with a queued one and superseding a running one.
/// - periodic bots queue an integration (cause `periodic`) when their schedule comes round, in the
///   configured time zone; a period missed while the server was down runs once at start.
/// - Queued integrations — from here, webhooks or `kiln trigger` in another process — are claimed as
///   soon as an executor is free, and a request to cancel reaches its integration at once: both
///   arrive through the store's change stream.
/// - On graceful shutdown every running integration is canceled (its processes stopped) and recorded.
public actor Scheduler: Service {
    public struct Settings: Sendable {
        public var executors: Int
        public var timeZone: TimeZone
        /// Integrations per bot that keep their logs, issues and tests (`retention.integrations`).
        public var retention: Int
        /// How often the loops look at the clock and the bots directory, and — in case a change
        /// notification was missed — at the queue.
        public var tick: Duration
        /// This host's name among several (`host:`), and how long it may stay silent (`host-lease`).
        public var host: String
        public var hostLease: Duration

        public init(
            executors: Int, timeZone: TimeZone = .current, retention: Int = 500, tick: Duration = .seconds(1),
            host: String = ProcessInfo.processInfo.hostName, hostLease: Duration = .seconds(30)
        ) {
            self.executors = executors
            self.timeZone = timeZone
            self.retention = retention
            self.tick = tick
            self.host = host
            self.hostLease = hostLease
        }
    }

    let registry: BotRegistry
    let store: any IntegrationQueue & IntegrationRecords & HostRegistry & ChangeFeed & AuditTrail
    let sequencer: IntegrationSequencer
    let settings: Settings
    let logger: Logger
    let owner: String
    let clock: WallClock

    /// Per bot: when its remote was last polled.
    var lastPoll: [String: ContinuousClock.Instant] = [:]
    /// Per bot: when its periodic schedule last queued an integration.
    var lastPeriodic: [String: Date] = [:]
    var directoryFingerprint = ""
    /// What tells that the bot files may have changed, and when they are read anyway.
    let botsWatch: BotFilesWatch?
    var nextFullLook: ContinuousClock.Instant
    let startedAt: Date
    /// Beaten at every turn of the dispatch loop (at least once a tick): `/health` reads it.
    public let pulse: Pulse

    /// Integrations running now, each with its claim and the signal that stops it.
    var running: [Int64: (claim: Claim, stop: AsyncStream<Void>.Continuation)] = [:]
    /// Whether something may have asked running work to stop since the scheduler last looked.
    private var stopsToCheck = true
    /// Claims made in a queueing's transaction (`queueAndStart`), for the dispatch loop to run;
    /// executors promised to such a queueing under way; the dispatch loop's wake-up while it runs.
    private var handedOver: [(claim: Claim, bot: Bot?, stops: AsyncStream<Void>)] = []
    var promised = 0
    /// Executors lent to running integrations' test shards (`SpareExecutors`).
    var lent = 0
    /// The workspace slots of other hosts' test shards running here (`runShard`), and until when
    /// this host claims none after one it could not set up (the part's own host takes it back).
    var shardSlots: Set<Int> = []
    var shardsPausedUntil: ContinuousClock.Instant?
    var wake: AsyncStream<Void>.Continuation?
    /// Whether this host holds the schedule lease (polls and periodic schedules run on one host),
    /// and when it looks again.
    var leadership: (held: Bool, until: ContinuousClock.Instant)?
    /// The forge's answers on the authors of pull requests waiting for approval
    /// (`checkMembers`), by integration and commit.
    var membership = MembershipAnswers()

    public init(
        registry: BotRegistry, store: any IntegrationQueue & IntegrationRecords & HostRegistry & ChangeFeed & AuditTrail,
        sequencer: IntegrationSequencer,
        settings: Settings, logger: Logger,
        owner: String? = nil, clock: WallClock = .system
    ) {
        self.registry = registry
        self.store = store
        self.sequencer = sequencer
        self.settings = settings
        self.logger = logger
        self.owner = owner ?? ProcessOwner.current(host: settings.host)
        self.clock = clock
        self.startedAt = clock.now
        nextFullLook = clock.monotonic.now
        pulse = Pulse(now: clock.monotonic.now)
        botsWatch = BotFilesWatch(directory: registry.directory)
    }

    public func run() async throws {
        await reloadIfChanged()
        await applyRetention(bot: nil)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.every(self.settings.tick) { await $0.reloadIfChanged() } }
                group.addTask {
                    await self.every(self.settings.tick) { scheduler in
                        await scheduler.pollRemotes()
                        await scheduler.checkMembers()
                    }
                }
                group.addTask { await self.every(self.settings.tick) { await $0.queuePeriodic() } }
                group.addTask { await self.dispatch() }
                group.addTask { await self.every(.seconds(24 * 3600)) { await $0.pruneDependencyMirrors() } }
            }
        }
        // a snapshot still packing is finished: stop-limit bounds the wait, as it bounds the rest
        await sequencer.warm?.packer.settle()
        logger.info("scheduler stopped")
    }

    // MARK: Running

    /// Queues `request` (of `bot`) and, when an executor is free, claims in the same transaction
    /// what `claimNext` would take (`IntegrationQueue.enqueue(_:claimingFor:toolchains:now:)`) and
    /// starts it: `kiln trigger`'s integration skips a transaction and the change feed's round
    /// trip to this scheduler.
    public func queueAndStart(_ request: QueueRequest, of bot: Bot) async throws(StoreError) -> QueueOutcome {
        guard let wake, occupied < settings.executors else { return try await store.enqueue(request, now: clock.now) }
        // Promised across the awaits, so that the dispatch loop does not claim for it meanwhile.
        promised += 1
        defer { promised -= 1 }
        let (outcome, claim) = try await store.enqueue(request, claimingFor: owner, toolchains: sequencer.offeredToolchains, now: clock.now)
        guard let claim else { return outcome }
        let claimed = claim.bot == bot.name ? bot : await registry.catalog.bot(named: claim.bot)
        guard self.wake != nil else {
            _ = await sequencer.record(claim, outcome: IntegrationOutcome(result: .canceled, reason: .serverStopped))
            return outcome
        }
        let (stops, stop) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        running[claim.id] = (claim, stop)
        handedOver.append((claim, claimed, stops))
        wake.yield()
        return outcome
    }

    /// Claims queued integrations while an executor is free and runs each in a child task. The
    /// queue is looked at whenever it changes (in any process or host) and when an executor frees
    /// up; the cancel requests whenever someone asks work to stop; both once a tick in case a
    /// change was missed. A claim, step or log of another host wakes no scheduler.
    private func dispatch() async {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (queue, stops) = (store.queueChanges(), store.stopChanges())
        let tick = settings.tick
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in queue { wake.yield() }
            }
            group.addTask {
                for await _ in stops {
                    await self.stopsMayHaveChanged()
                    wake.yield()
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    await self.clock.monotonic.sleep(for: tick)
                    await self.stopsMayHaveChanged()
                    wake.yield()
                }
            }
            func start(_ claim: Claim, of bot: Bot?, until stops: AsyncStream<Void>) {
                group.addTask {
                    await self.execute(claim, of: bot, until: stops)
                    await self.executorFreed(claim.id)
                    wake.yield()
                    // Housekeeping once the executor is free: the next claim does not wait for it.
                    if let bot { await self.applyRetention(bot: bot.name) }
                }
            }
            self.wake = wake
            wake.yield()
            for await _ in wakeups {
                pulse.beat(at: clock.monotonic.now)
                for handed in handedOver { start(handed.claim, of: handed.bot, until: handed.stops) }
                handedOver.removeAll()
                if stopsToCheck {
                    stopsToCheck = false
                    await stopCanceled()
                }
                while occupied < settings.executors, let (claim, bot) = await claim() {
                    let (stops, stop) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
                    running[claim.id] = (claim, stop)
                    start(claim, of: bot, until: stops)
                }
                // An executor nothing queued here needs runs a part of another host's tests.
                while occupied < settings.executors, let (shard, bot, slot) = await claimShard() {
                    group.addTask {
                        let end = await self.sequencer.runShard(shard, of: bot, slot: slot)
                        await self.shardEnded(slot: slot, end)
                        wake.yield()
                    }
                }
            }
        }
        // Stopping: a queueing claims no more, and what it claimed but the loop did not start
        // ends as canceled, as the running integrations did.
        self.wake = nil
        for handed in handedOver {
            _ = await sequencer.record(handed.claim, outcome: IntegrationOutcome(result: .canceled, reason: .serverStopped))
            executorFreed(handed.claim.id)
        }
        handedOver.removeAll()
    }

    private func stopsMayHaveChanged() {
        stopsToCheck = true
    }

    private func executorFreed(_ id: Int64) {
        running[id]?.stop.finish()
        running[id] = nil
    }

    /// Executors running an integration, or its test shards, now.
    public var busy: Int { running.count + lent + shardSlots.count }

    /// Stops the running integrations someone asked to stop (cancel-superseded, a closed pull
    /// request), and those this host no longer holds (another host took it as gone).
    private func stopCanceled() async {
        let (store, claims) = (store, running.values.map(\.claim))
        guard !claims.isEmpty,
            let requests = await logger.bestEffort(
                "reading which running integrations must stop", loses: "they are stopped at the next look instead",
                { () async throws(StoreError) in try await store.stopRequests(for: claims) })
        else { return }
        for request in requests {
            if let lost = request.lost {
                logger.warning("stopping an integration this host no longer holds", metadata: ["id": "\(request.id)", "reason": "\(lost)"])
            }
            running[request.id]?.stop.yield()
        }
    }

    private func claim() async -> (Claim, Bot?)? {
        do {
            guard let claim = try await store.claimNext(owner: owner, toolchains: sequencer.offeredToolchains, now: clock.now) else { return nil }
            return (claim, await registry.catalog.bot(named: claim.bot))
        } catch {
            logger.error("cannot claim", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Runs one integration until it completes or `stops` says stop (then it is canceled and recorded).
    private nonisolated func execute(_ claim: Claim, of bot: Bot?, until stops: AsyncStream<Void>) async {
        let integration = claim.integration
        guard let bot else {
            // Recorded as any result is: waiting for the store while it cannot be reached.
            _ = await sequencer.record(claim, outcome: IntegrationOutcome(result: .canceled, reason: .botUnavailable))
            return
        }
        logger.info("started", metadata: ["bot": "\(bot.name)", "number": "\(integration.number)", "cause": "\(integration.cause.rawValue)"])
        let ended = await withTaskGroup(of: Integration?.self) { group in
            group.addTask { await self.sequencer.run(claim, of: bot, spare: self) }
            group.addTask {
                for await _ in stops { return nil }
                return nil
            }
            var completed: Integration?
            while let next = await group.next() {
                if let next { completed = next }
                // Either the integration completed or it was told to stop: end the other child.
                group.cancelAll()
            }
            return completed
        }
        logger.info(
            "ended", metadata: ["bot": "\(bot.name)", "number": "\(integration.number)", "result": "\(ended?.result?.rawValue ?? "unknown")"])
    }
}
