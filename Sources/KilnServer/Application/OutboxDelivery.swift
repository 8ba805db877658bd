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

/// One output's half of the outbox: what its deliveries are, and how one is attempted. The
/// claiming, the order of a lane, the backoff, the records of each attempt and the log are
/// `OutboxDelivery`'s, the same for every output; a new output is a `Deliverer`, the renderer
/// of what it says, and its setting.
protocol Deliverer: Sendable {
    associatedtype Item: Sendable
    /// Its deliveries in the outbox.
    var kind: OutboxKind { get }
    /// What one delivery is, for the log: "mail", "commit status", "review".
    var noun: String { get }
    /// The delivery's item; nil when this version cannot read it (it is then given up, saying so).
    func item(_ stored: StoredDelivery) -> Item?
    /// One attempt.
    func deliver(_ item: Item, _ stored: StoredDelivery) async -> DeliveryAnswer
    /// What the log says of `item`: its bot, commit or pull request.
    func metadata(_ item: Item) -> Logger.Metadata
}

/// Works the outbox for one output: claims what is due, attempts up to `width` at once, and
/// records each answer (a failure tried again per `retry`, a refusal kept with its words).
struct OutboxDelivery<Kind: Deliverer>: Sendable {
    let deliverer: Kind
    let store: any Outboxes
    let retry: RetryPolicy
    let width: Int
    let clock: WallClock
    let logger: Logger

    /// Returns how many were delivered.
    func deliverDue() async throws(StoreError) -> Int {
        var delivered = 0
        // A read first: claiming is a write, which the scheduler's writes would wait behind.
        while let next = try await store.nextDeliveryAttempt(deliverer.kind), next <= clock.now {
            let due = try await store.dueDeliveries(deliverer.kind, now: clock.now, limit: max(1, width) * 4)
            guard !due.isEmpty else { break }
            let sent = await deliver(due)
            delivered += sent
            if sent == 0 { break }
        }
        return delivered
    }

    private func deliver(_ due: [StoredDelivery]) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            var delivered = 0
            var pending = due[...]
            func startNext() {
                guard let stored = pending.popFirst() else { return }
                group.addTask { await attempt(stored) }
            }
            for _ in 0..<max(1, width) { startNext() }
            while let sent = await group.next() {
                if sent { delivered += 1 }
                startNext()
            }
            return delivered
        }
    }

    private func attempt(_ stored: StoredDelivery) async -> Bool {
        let noun = deliverer.noun
        var metadata: Logger.Metadata = ["delivery": "\(stored.id)"]
        let answer: DeliveryAnswer
        if let item = deliverer.item(stored) {
            metadata.merge(deliverer.metadata(item)) { _, new in new }
            answer = await deliverer.deliver(item, stored)
        } else {
            answer = .refused(code: nil, message: "this version of Kiln cannot read this \(noun); it was queued by another version")
        }
        do {
            switch answer {
            case .delivered(let code):
                try await store.deliverySent(stored.id, responseCode: code, now: clock.now)
                logger.debug("\(noun) delivered", metadata: metadata)
                return true
            case .refused(let code, let message):
                try await store.deliveryFailed(stored.id, error: message, responseCode: code, retryAt: nil, now: clock.now)
                metadata["code"] = "\(code.map(String.init) ?? "none")"
                metadata["answer"] = "\(message)"
                logger.error("the \(noun) was refused", metadata: metadata)
            case .failed(let code, let message):
                let next = retry.nextAttempt(after: stored.attempts + 1, queuedAt: stored.createdAt, now: clock.now)
                try await store.deliveryFailed(stored.id, error: message, responseCode: code, retryAt: next, now: clock.now)
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
