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

/// Delivers the reviews' outbox (`forge.review`): each review composed when its pull request's
/// integration completed (`IntegrationOutcome.review`), claimed by one host, a pull request's in
/// order, retried with backoff for a day while the forge is away; a refusal is recorded with the
/// forge's own message. It never holds an integration up.
public actor ReviewPublisher: Service {
    public struct Settings: Sendable {
        public var retry: RetryPolicy
        /// How often due retries are looked for when nothing changes.
        public var tick: Duration
        public var http: HTTPPost

        public init(
            retry: RetryPolicy = RetryPolicy(first: .seconds(5), longest: .seconds(600)), tick: Duration = .seconds(1),
            http: HTTPPost = HTTPPost()
        ) {
            self.retry = retry
            self.tick = tick
            self.http = http
        }
    }

    let store: any ReviewOutbox & Outboxes & ChangeFeed
    /// The server's `public-url`: where comments link to.
    let publicURL: String
    let settings: Settings
    let logger: Logger
    let clock: WallClock
    /// Whether a bot of this host posts reviews (`forge.review`). Without one, only reviews a
    /// bot composed before it changed, or another host's, can be due: a round then looks once a
    /// tick, not at every change of the store.
    let reviewing: @Sendable () async -> Bool
    private var lastIdleLook: ContinuousClock.Instant?
    private let wakeups: AsyncStream<Void>
    private let wakeup: AsyncStream<Void>.Continuation

    public init(
        store: any ReviewOutbox & Outboxes & ChangeFeed, publicURL: String, settings: Settings = Settings(), logger: Logger,
        clock: WallClock = .system,
        reviewing: @escaping @Sendable () async -> Bool = { true }
    ) {
        self.store = store
        self.reviewing = reviewing
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.settings = settings
        self.logger = logger
        self.clock = clock
        (wakeups, wakeup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func run() async throws {
        await Rounds.run(tick: settings.tick, clock: clock.monotonic, wakeups: wakeups, wakeup: wakeup, changes: store.changes()) {
            _ = await self.round()
        }
        logger.info("review publisher stopped")
    }

    /// Delivers what is due; returns how many reviews the forges took whole.
    @discardableResult
    public func round() async -> Int {
        if await !reviewing() {
            if let last = lastIdleLook, clock.monotonic.since(last) < settings.tick { return 0 }
            lastIdleLook = clock.monotonic.now
        }
        do {
            // A pull request's reviews go one at a time, in order; one at a time overall keeps
            // the forge's rate limits far.
            return try await OutboxDelivery(
                deliverer: ReviewDeliverer(store: store, http: settings.http, publicURL: publicURL), store: store, retry: settings.retry, width: 1,
                clock: clock, logger: logger
            ).deliverDue()
        } catch {
            logger.error("review round failed", metadata: ["error": "\(error)"])
            return 0
        }
    }
}

/// Reviews as the outbox delivers them: `ReviewClient` posts each, recording its comments and
/// its progress as it goes, so that another attempt posts nothing twice.
struct ReviewDeliverer: Deliverer {
    let store: any ReviewOutbox & Outboxes
    let http: HTTPPost
    let publicURL: String

    var kind: OutboxKind { .review }
    var noun: String { "review" }

    func item(_ stored: StoredDelivery) -> QueuedReview? {
        guard var queued = QueuedReview(stored) else { return nil }
        queued.draft.request.url = queued.draft.request.url ?? "\(publicURL)/bots/\(queued.draft.bot)/integrations/\(queued.draft.number)"
        return queued
    }

    func deliver(_ queued: QueuedReview, _ stored: StoredDelivery) async -> DeliveryAnswer {
        let draft = queued.draft
        let (bot, number, store) = (draft.bot, draft.request.pullRequest, store)
        guard let token = SecretFile.read(draft.request.tokenFile) else {
            return .failed(code: nil, message: "cannot read the forge token file \(draft.request.tokenFile) (forge.token-file)")
        }
        let commented: [ReviewComment]
        do {
            commented = try await store.reviewComments(bot: bot, pullRequest: number)
        } catch {
            return .failed(code: nil, message: "cannot read the pull request's review comments: \(error)")
        }
        let record = ReviewClient.Recorder(
            comments: { comments in try await store.recordReviewComments(comments, bot: bot, pullRequest: number) },
            progress: { [id = queued.id] progress in try await store.recordDeliveryProgress(id, progress: progress) })
        do throws(ReviewClient.Failure) {
            let code = try await ReviewClient(http: http).deliver(
                queued, token: String(decoding: token, as: UTF8.self), commented: commented, record: record)
            return .delivered(code: code)
        } catch {
            switch error {
            case .refused(let code, let message): return .refused(code: code, message: message)
            case .failed(let code, let message): return .failed(code: code, message: message)
            }
        }
    }

    func metadata(_ queued: QueuedReview) -> Logger.Metadata {
        ["bot": "\(queued.draft.bot)", "pullRequest": "\(queued.draft.request.pullRequest)", "integration": "\(queued.draft.number)"]
    }
}
