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
import KilnMail
import KilnPresentation
import KilnStore
import Logging
import ServiceLifecycle

/// Tells forges how integrations go: composes a commit status whenever an integration of a bot
/// with `forge` is queued, starts or ends, and delivers the statuses' outbox.
///
/// Composing is driven by the store, not by the code that moves integrations: each round asks the
/// store which integrations' statuses lag behind them, so nothing is missed across a restart or
/// between hosts, and `queueStatuses` composes each stage once. Delivery is like mail's: claimed,
/// retried with backoff for a day, a refusal (401, 403, 404, 422) recorded with the forge's
/// message for the pages and `kiln status`. It never holds an integration up.
public actor StatusPublisher: Service {
    public struct Settings: Sendable {
        public var retry: RetryPolicy
        /// How often due retries are looked for when nothing changes.
        public var tick: Duration
        /// Statuses posted at once (to different commits or contexts; one context's go in order).
        public var parallelPosts: Int
        /// Integrations queued longer ago than this get no status: a forge configured later does
        /// not hear about the past.
        public var horizon: Duration
        public var client: ForgeClient

        public init(
            retry: RetryPolicy = RetryPolicy(first: .seconds(5), longest: .seconds(600)), tick: Duration = .seconds(1), parallelPosts: Int = 4,
            horizon: Duration = .seconds(24 * 3600), client: ForgeClient = ForgeClient()
        ) {
            self.retry = retry
            self.tick = tick
            self.parallelPosts = parallelPosts
            self.horizon = horizon
            self.client = client
        }
    }

    let store: any StatusOutbox & Outboxes & IntegrationRecords & ChangeFeed
    let registry: BotRegistry
    /// The server's `public-url`: where statuses link to.
    let publicURL: String
    let settings: Settings
    let logger: Logger
    let clock: WallClock
    private let wakeups: AsyncStream<Void>
    private let wakeup: AsyncStream<Void>.Continuation
    /// When a round with no bot to compose for last looked at the outbox: without such bots, it
    /// looks once a tick, not at every change of every host.
    private var lastIdleLook: ContinuousClock.Instant?

    public init(
        store: any StatusOutbox & Outboxes & IntegrationRecords & ChangeFeed, registry: BotRegistry, publicURL: String,
        settings: Settings = Settings(),
        logger: Logger,
        clock: WallClock = .system
    ) {
        self.store = store
        self.registry = registry
        self.publicURL = publicURL
        self.settings = settings
        self.logger = logger
        self.clock = clock
        (wakeups, wakeup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func run() async throws {
        await Rounds.run(tick: settings.tick, clock: clock.monotonic, wakeups: wakeups, wakeup: wakeup, changes: store.changes()) {
            _ = await self.round()
        }
        logger.info("status publisher stopped")
    }

    /// One round: compose what lags, then deliver what is due until nothing more is (a
    /// context's next status becomes due as soon as the one before it is delivered). Returns
    /// the statuses delivered.
    @discardableResult
    public func round() async -> Int {
        // Filtered once per load: this runs at every change of the store, of any host.
        let bots = await registry.forgeBots
        if bots.isEmpty {
            // Only retries of statuses composed before (by a bot since changed) can be due.
            if let last = lastIdleLook, clock.monotonic.since(last) < settings.tick { return 0 }
            lastIdleLook = clock.monotonic.now
        }
        do {
            if !bots.isEmpty { try await compose(bots) }
            return try await OutboxDelivery(
                deliverer: StatusDeliverer(client: settings.client), store: store, retry: settings.retry, width: settings.parallelPosts,
                clock: clock, logger: logger
            ).deliverDue()
        } catch {
            logger.error("commit status round failed", metadata: ["error": "\(error)"])
            return 0
        }
    }

    /// Queues the statuses of integrations that moved on since their last one.
    private func compose(_ bots: [Bot]) async throws(StoreError) {
        let byName = Dictionary(bots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let since = clock.now.addingTimeInterval(-Double(settings.horizon.components.seconds))
        let candidates = try await store.integrationsAwaitingStatus(bots: Array(byName.keys), since: since, limit: 100)
        for candidate in candidates {
            let integration = candidate.integration
            guard let bot = byName[integration.bot], let forge = bot.forge, let commit = integration.commit else { continue }
            let stage = StatusStage(integration)
            var issues: [IntegrationIssue] = []
            if stage == .completed { issues = try await store.integration(bot: bot.name, number: integration.number)?.issues ?? [] }
            let status = CommitStatus(of: integration, bot: bot, forge: forge, stage: stage, sha: commit, issues: issues, publicURL: publicURL)
            var statuses = [status]
            if stage == .completed, let patch = integration.patchCoverage {
                statuses.append(
                    CommitStatus.coverage(of: integration, patch: patch, bot: bot, forge: forge, sha: commit, publicURL: publicURL))
            }
            // A queued integration that moved on to a newer commit leaves its old one pending: say why.
            if let old = candidate.postedCommit, old != commit, candidate.postedStage != .completed {
                var previous = status
                previous.sha = old
                statuses.insert(previous.superseded(by: commit), at: 0)
            }
            try await store.queueStatuses(statuses, for: candidate, stage: stage, commit: commit, now: clock.now)
        }
    }
}

/// Commit statuses as the outbox delivers them: posted to the forge's API with the bot's token.
struct StatusDeliverer: Deliverer {
    let client: ForgeClient

    var kind: OutboxKind { .status }
    var noun: String { "commit status" }

    func item(_ stored: StoredDelivery) -> QueuedStatus? { QueuedStatus(stored) }

    func deliver(_ queued: QueuedStatus, _ stored: StoredDelivery) async -> DeliveryAnswer {
        guard let token = SecretFile.read(queued.status.tokenFile) else {
            return .failed(code: nil, message: "cannot read the forge token file \(queued.status.tokenFile) (forge.token-file)")
        }
        switch await client.post(queued.status, token: String(decoding: token, as: UTF8.self)) {
        case .delivered(let code): return .delivered(code: code)
        case .refused(let code, let message): return .refused(code: code, message: message)
        case .failed(let code, let message): return .failed(code: code, message: message)
        }
    }

    func metadata(_ queued: QueuedStatus) -> Logger.Metadata {
        ["bot": "\(queued.status.bot)", "commit": "\(ShortHash.text(queued.status.sha))", "state": "\(queued.status.state.rawValue)"]
    }
}
