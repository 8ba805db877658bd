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

/// One output's deliveries in the store's one outbox (the `delivery` table): `mail`, `status`
/// (commit statuses), `review` (pull request reviews). An output names its kind in its own file
/// (`extension OutboxKind { static let chat = OutboxKind("chat") }`); the store needs nothing
/// more to queue, claim, retry and list it.
public struct OutboxKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static let mail = OutboxKind("mail")
    public static let status = OutboxKind("status")
    public static let review = OutboxKind("review")
}

/// Where a delivery stands.
public enum OutboxState: String, Sendable, Hashable, CaseIterable, Codable {
    /// Waiting for its next attempt.
    case queued
    /// The remote took it.
    case sent
    /// The remote refused it for good, or it kept failing for a day (`RetryPolicy`).
    case givenUp = "given-up"
}

/// A delivery to queue: what the outbox keeps of any output's item.
public struct NewDelivery: Sendable, Hashable {
    public var kind: OutboxKind
    /// Deliveries of one kind with the same lane go one at a time, in the order they were queued
    /// (a context's commit statuses, a pull request's reviews); nil: each goes on its own.
    public var lane: String?
    /// Same key, same delivery: a second one with this key is not queued.
    public var dedupeKey: String?
    public var bot: String?
    public var integrationID: Int64?
    /// The item's fields, as JSON.
    public var payload: String
    /// Bytes kept beside the fields as they are (a mail's message).
    public var body: [UInt8]?

    public init(
        kind: OutboxKind, lane: String? = nil, dedupeKey: String? = nil, bot: String?, integrationID: Int64?, payload: String, body: [UInt8]? = nil
    ) {
        self.kind = kind
        self.lane = lane
        self.dedupeKey = dedupeKey
        self.bot = bot
        self.integrationID = integrationID
        self.payload = payload
        self.body = body
    }

    /// `item`'s fields as the payload.
    public init<Item: Encodable>(
        kind: OutboxKind, lane: String? = nil, dedupeKey: String? = nil, bot: String?, integrationID: Int64?, item: Item, body: [UInt8]? = nil
    ) {
        self.init(
            kind: kind, lane: lane, dedupeKey: dedupeKey, bot: bot, integrationID: integrationID, payload: OutboxPayload.encode(item), body: body)
    }
}

/// A delivery as the outbox keeps it: what was queued, and how its attempts went.
public struct StoredDelivery: Sendable, Hashable {
    public var id: Int64
    public var queued: NewDelivery
    public var state: OutboxState
    public var attempts: Int
    public var createdAt: Date
    public var nextAttemptAt: Date
    public var lastError: String?
    /// The remote's answer's code to the last attempt, where it gave one.
    public var responseCode: Int?
    /// How far an earlier attempt got, in the deliverer's words (a review's id at the forge).
    public var progress: String?

    public init(
        id: Int64, queued: NewDelivery, state: OutboxState, attempts: Int, createdAt: Date, nextAttemptAt: Date, lastError: String? = nil,
        responseCode: Int? = nil, progress: String? = nil
    ) {
        (self.id, self.queued, self.state, self.attempts) = (id, queued, state, attempts)
        (self.createdAt, self.nextAttemptAt) = (createdAt, nextAttemptAt)
        (self.lastError, self.responseCode, self.progress) = (lastError, responseCode, progress)
    }

    public var kind: OutboxKind { queued.kind }

    /// The payload as `Item`; nil when this version cannot read it.
    public func item<Item: Decodable>(_ type: Item.Type) -> Item? {
        try? JSONDecoder().decode(type, from: Data(queued.payload.utf8))
    }
}

/// How an item's fields are written as a payload: sorted keys, so that equal items are equal text.
public enum OutboxPayload {
    public static func encode<Item: Encodable>(_ item: Item) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Only a value that cannot be JSON (a non-finite number) fails; no payload holds one.
        return (try? encoder.encode(item)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
