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

/// What one attempt at a delivery came to.
enum DeliveryAnswer: Sendable {
    /// The remote took it (`code`: its answer's code, where it has one).
    case delivered(code: Int?)
    /// The remote refused it for good, in its own words: it is not tried again.
    case refused(code: Int?, message: String)
    /// It did not get through (the remote away, a timeout, a 5xx): tried again with backoff.
    case failed(code: Int?, message: String)
}

/// A delivery as its outbox keeps it: how many attempts it had, and when it was queued (what its
/// backoff counts from).
protocol OutboxItem: Sendable {
    var attempts: Int { get }
    var createdAt: Date { get }
}

extension QueuedMail: OutboxItem {}
extension QueuedStatus: OutboxItem {}
extension QueuedReview: OutboxItem {}

/// One kind of output of the outboxes: mail (`Mailer`), commit statuses (`StatusPublisher`),
/// reviews (`ReviewPublisher`). It says how its deliveries are claimed from the store, delivered
/// and recorded; `OutboxDelivery` does the rest, once for every kind: the order, the width, the
/// backoff, the refusals kept with the remote's words, and the log.
protocol Deliverer: Sendable {
    associatedtype Item: OutboxItem
    /// What one delivery is, for the log: "mail", "commit status", "review".
    var noun: String { get }
    /// When the next queued delivery is due; nil when none is queued.
    func nextAttempt() async throws(StoreError) -> Date?
    /// Claims due deliveries, oldest first, each the first of its lane.
    func claim(now: Date, limit: Int) async throws(StoreError) -> [Item]
    /// One attempt.
    func deliver(_ item: Item) async -> DeliveryAnswer
    func sent(_ item: Item, code: Int?, now: Date) async throws(StoreError)
    func failed(_ item: Item, message: String, code: Int?, retryAt: Date?, now: Date) async throws(StoreError)
    /// What the log says of `item`: its bot, commit or pull request.
    func metadata(_ item: Item) -> Logger.Metadata
}

/// Delivers what is due of one `Deliverer`'s outbox: claims a batch, delivers up to `width` at
/// once, records each attempt (the next after backoff, or given up after a day or a refusal),
/// and claims again while a batch delivered something. A batch that delivered nothing ends the
/// round: the remote is likely away, and the rest wait for their next attempt.
struct OutboxDelivery<Kind: Deliverer>: Sendable {
    let deliverer: Kind
    let retry: RetryPolicy
    let width: Int
    let clock: WallClock
    let logger: Logger

    /// Returns how many were delivered.
    func deliverDue() async throws(StoreError) -> Int {
        var delivered = 0
        // A read first: claiming is a write, which the scheduler's writes would wait behind.
        while let next = try await deliverer.nextAttempt(), next <= clock.now {
            let due = try await deliverer.claim(now: clock.now, limit: max(1, width) * 4)
            guard !due.isEmpty else { break }
            let sent = await deliver(due)
            delivered += sent
            if sent == 0 { break }
        }
        return delivered
    }

    private func deliver(_ due: [Kind.Item]) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            var delivered = 0
            var pending = due[...]
            func startNext() {
                guard let item = pending.popFirst() else { return }
                group.addTask { await attempt(item) }
            }
            for _ in 0..<max(1, width) { startNext() }
            while let sent = await group.next() {
                if sent { delivered += 1 }
                startNext()
            }
            return delivered
        }
    }

    private func attempt(_ item: Kind.Item) async -> Bool {
        let noun = deliverer.noun
        var metadata = deliverer.metadata(item)
        let answer = await deliverer.deliver(item)
        do {
            switch answer {
            case .delivered(let code):
                try await deliverer.sent(item, code: code, now: clock.now)
                logger.debug("\(noun) delivered", metadata: metadata)
                return true
            case .refused(let code, let message):
                try await deliverer.failed(item, message: message, code: code, retryAt: nil, now: clock.now)
                metadata["code"] = "\(code.map(String.init) ?? "none")"
                metadata["answer"] = "\(message)"
                logger.error("the \(noun) was refused", metadata: metadata)
            case .failed(let code, let message):
                let next = retry.nextAttempt(after: item.attempts + 1, queuedAt: item.createdAt, now: clock.now)
                try await deliverer.failed(item, message: message, code: code, retryAt: next, now: clock.now)
                metadata["error"] = "\(message)"
                logger.warning(
                    next == nil ? "giving up a \(noun) after a day of failures" : "cannot deliver a \(noun) yet; trying again", metadata: metadata)
            }
        } catch {
            metadata["error"] = "\(error)"
            logger.error("cannot record an attempt to deliver a \(noun)", metadata: metadata)
        }
        return false
    }
}
