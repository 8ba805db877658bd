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
import KilnStore
import Logging
import ServiceLifecycle

/// Delivers the outbox, and has the notifier compose the mail of email triggers.
///
/// Once a second (and whenever `wake()` is called) it composes the mail of newly completed
/// integrations, queues digests whose time has come, and sends what is due. A failed attempt is
/// retried with exponential backoff for up to a day; a permanent refusal (5xx) is recorded with
/// the server's answer. Mail runs beside the executors and never holds an integration up.
///
/// Without `smtp` in the server config nothing is composed or sent; integrations are only marked
/// as seen, so that configuring mail later does not mail about the past.
public actor Mailer: Service {
    public struct Settings: Sendable {
        public var retry: RetryPolicy
        public var tick: Duration
        /// Mails sent at once.
        public var parallelSends: Int

        public init(retry: RetryPolicy = RetryPolicy(), tick: Duration = .seconds(1), parallelSends: Int = 4) {
            self.retry = retry
            self.tick = tick
            self.parallelSends = parallelSends
        }
    }

    /// What sends: the notifier that composes, the client that delivers, the envelope sender.
    public struct Delivery: Sendable {
        public var notifier: Notifier
        public var client: SMTPClient
        public var sender: String

        public init(notifier: Notifier, client: SMTPClient, sender: String) {
            self.notifier = notifier
            self.client = client
            self.sender = sender
        }
    }

    let store: any MailOutbox & Outboxes
    let registry: BotRegistry
    let delivery: Delivery?
    let settings: Settings
    let logger: Logger
    let clock: WallClock
    private var lastDigestTimes: [ReportFrequency: Date] = [:]
    private let wakeups: AsyncStream<Void>
    private let wakeup: AsyncStream<Void>.Continuation

    public init(
        store: any MailOutbox & Outboxes, registry: BotRegistry, delivery: Delivery?, settings: Settings = Settings(), logger: Logger,
        clock: WallClock = .system
    ) {
        self.store = store
        self.registry = registry
        self.delivery = delivery
        self.settings = settings
        self.logger = logger
        self.clock = clock
        (wakeups, wakeup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Makes the next round happen now rather than at the next tick.
    public nonisolated func wake() {
        wakeup.yield()
    }

    public func run() async throws {
        await Rounds.run(tick: settings.tick, clock: clock.monotonic, wakeups: wakeups, wakeup: wakeup) { _ = await self.round() }
        logger.info("mailer stopped")
    }

    /// One round: compose, queue digests, deliver what is due. Returns the mails delivered.
    @discardableResult
    public func round() async -> Int {
        let bots = await registry.catalog.bots.map(\.bot)
        let current = clock.now
        do {
            guard let delivery else {
                if !(try await store.integrationsToNotify(limit: 1)).isEmpty { try await store.markAllNotified(now: current) }
                return 0
            }
            let composed = try await delivery.notifier.notifyCompleted(bots: bots, now: current)
            if composed > 0 { logger.info("mail queued", metadata: ["mails": "\(composed)"]) }
            try await queueDigests(delivery.notifier, bots: bots, now: current)
            return try await OutboxDelivery(
                deliverer: MailDeliverer(client: delivery.client, sender: delivery.sender), store: store, retry: settings.retry,
                width: settings.parallelSends, clock: clock, logger: logger
            ).deliverDue()
        } catch {
            logger.error("mail round failed", metadata: ["error": "\(error)"])
            return 0
        }
    }

    /// Digests are looked at only when a report time has passed since the last look.
    private func queueDigests(_ notifier: Notifier, bots: [Bot], now: Date) async throws(StoreError) {
        let reporting = bots.contains { bot in
            bot.triggers.contains {
                if case .email(let trigger) = $0, trigger.kind == .report(.daily) || trigger.kind == .report(.weekly) { true } else { false }
            }
        }
        guard reporting else { return }
        let due = [ReportFrequency.daily, .weekly].compactMap { frequency in
            notifier.lastReportTime(frequency, atOrBefore: now).map { (frequency, $0) }
        }
        guard due.contains(where: { lastDigestTimes[$0.0] != $0.1 }) else { return }
        let queued = try await notifier.queueDigests(bots: bots, now: now)
        for (frequency, time) in due { lastDigestTimes[frequency] = time }
        if queued > 0 { logger.info("digests queued", metadata: ["mails": "\(queued)"]) }
    }
}

/// Mail as the outbox delivers it: sent to the SMTP server as it was composed.
struct MailDeliverer: Deliverer {
    let client: SMTPClient
    let sender: String

    var kind: OutboxKind { .mail }
    var noun: String { "mail" }

    func item(_ stored: StoredDelivery) -> QueuedMail? { QueuedMail(stored) }

    func deliver(_ mail: QueuedMail, _ stored: StoredDelivery) async -> DeliveryAnswer {
        do throws(MailError) {
            try await client.send(mail.message, from: sender, to: mail.recipients)
            return .delivered(code: nil)
        } catch {
            let code: Int? = if case .rejected(let code, _) = error { code } else { nil }
            return error.isPermanent ? .refused(code: code, message: error.description) : .failed(code: code, message: error.description)
        }
    }

    func metadata(_ mail: QueuedMail) -> Logger.Metadata { ["subject": "\(mail.subject)", "attempts": "\(mail.attempts + 1)"] }
}
