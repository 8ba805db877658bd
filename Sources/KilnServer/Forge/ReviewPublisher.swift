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

    let store: any ReviewOutbox & ChangeFeed
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
        store: any ReviewOutbox & ChangeFeed, publicURL: String, settings: Settings = Settings(), logger: Logger, clock: WallClock = .system,
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
        var delivered = 0
        do {
            // A read first: claiming is a write, which the scheduler's writes would wait behind.
            while let next = try await store.nextReviewAttempt(), next <= clock.now {
                let due = try await store.dueReviews(now: clock.now, limit: 4)
                guard !due.isEmpty else { break }
                var sent = 0
                for review in due where await deliver(review) { sent += 1 }
                delivered += sent
                if sent == 0 { break }
            }
        } catch {
            logger.error("review round failed", metadata: ["error": "\(error)"])
        }
        return delivered
    }

    private func deliver(_ queued: QueuedReview) async -> Bool {
        var queued = queued
        queued.draft.request.url = queued.draft.request.url ?? "\(publicURL)/bots/\(queued.draft.bot)/integrations/\(queued.draft.number)"
        let draft = queued.draft
        let (bot, number) = (draft.bot, draft.request.pullRequest)
        let metadata: Logger.Metadata = ["bot": "\(bot)", "pullRequest": "\(number)", "integration": "\(draft.number)"]
        let store = store
        let record = ReviewClient.Recorder(
            comments: { comments in try await store.recordReviewComments(comments, bot: bot, pullRequest: number) },
            progress: { [id = queued.id] progress in try await store.recordReviewProgress(id, progress: progress) })
        let outcome: Result<Int, ReviewClient.Failure>
        if let token = SecretFile.read(draft.request.tokenFile) {
            let commented: [ReviewComment]
            do {
                commented = try await store.reviewComments(bot: bot, pullRequest: number)
            } catch {
                logger.error("cannot read a pull request's review comments", metadata: metadata.merging(["error": "\(error)"]) { a, _ in a })
                return false
            }
            do throws(ReviewClient.Failure) {
                outcome = .success(
                    try await ReviewClient(http: settings.http).deliver(
                        queued, token: String(decoding: token, as: UTF8.self), commented: commented, record: record))
            } catch {
                outcome = .failure(error)
            }
        } else {
            outcome = .failure(.failed(code: nil, message: "cannot read the forge token file \(draft.request.tokenFile) (forge.token-file)"))
        }
        do {
            switch outcome {
            case .success(let code):
                try await store.reviewSent(queued.id, responseCode: code, now: clock.now)
                logger.debug("review delivered", metadata: metadata)
                return true
            case .failure(.refused(let code, let message)):
                try await store.reviewFailed(queued.id, error: message, responseCode: code, retryAt: nil, now: clock.now)
                logger.error("the forge refused a review", metadata: metadata.merging(["code": "\(code)", "answer": "\(message)"]) { a, _ in a })
            case .failure(.failed(let code, let message)):
                let next = settings.retry.nextAttempt(after: queued.attempts + 1, queuedAt: queued.createdAt, now: clock.now)
                try await store.reviewFailed(queued.id, error: message, responseCode: code, retryAt: next, now: clock.now)
                logger.warning(
                    next == nil ? "giving up a review after a day of failures" : "cannot post a review yet; trying again",
                    metadata: metadata.merging(["error": "\(message)"]) { a, _ in a })
            }
        } catch {
            logger.error("cannot record a review attempt", metadata: metadata.merging(["error": "\(error)"]) { a, _ in a })
        }
        return false
    }
}
