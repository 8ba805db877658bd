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
import KilnTestSupport
import Logging
import Testing

@testable import KilnServer

/// An output the store has never heard of, added as ARCHITECTURE.md says a fourth output is: its
/// kind, its item and a `Deliverer`. The store and the delivery loop take it as they are.
extension OutboxKind {
    fileprivate static let chat = OutboxKind("chat")
}

private struct ChatMessage: Codable, Sendable, Hashable {
    var room: String
    var text: String
}

/// The chat service: takes what it is sent in order, answering each post from its script.
private actor ChatRoom {
    var posted: [String] = []
    var script: [String: [DeliveryAnswer]] = [:]

    func answer(_ text: String, with answers: DeliveryAnswer...) { script[text, default: []] += answers }

    func post(_ message: ChatMessage) -> DeliveryAnswer {
        let answer = script[message.text]?.isEmpty == false ? script[message.text]?.removeFirst() ?? .delivered(code: 200) : .delivered(code: 200)
        if case .delivered = answer { posted.append(message.text) }
        return answer
    }
}

private struct ChatDeliverer: Deliverer {
    let room: ChatRoom

    var kind: OutboxKind { .chat }
    var noun: String { "chat message" }

    func item(_ stored: StoredDelivery) -> ChatMessage? { stored.item(ChatMessage.self) }
    func deliver(_ message: ChatMessage, _ stored: StoredDelivery) async -> DeliveryAnswer { await room.post(message) }
    func metadata(_ message: ChatMessage) -> Logger.Metadata { ["room": "\(message.room)"] }
}

@Suite("The one outbox: a new output is a deliverer")
struct OutboxDeliveryTests {
    @Test(
        "A kind the store never saw is queued, delivered in order per lane, retried after a failure, refused for good with its words, and kept apart from mail"
    )
    func newOutput() async throws {
        let directory = try TemporaryDirectory("kiln-outbox")
        let store = try SQLiteStore.open(dataDirectory: directory.url("data"))
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let room = ChatRoom()
        let delivery = OutboxDelivery(
            deliverer: ChatDeliverer(room: room), store: store, retry: RetryPolicy(first: .seconds(30), longest: .seconds(60)), width: 4,
            clock: clock.wall, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        func queue(_ text: String, room: String) async throws {
            let message = ChatMessage(room: room, text: text)
            try await store.queueDelivery(NewDelivery(kind: .chat, lane: room, bot: "app", integrationID: nil, item: message), now: clock.now)
        }

        await room.answer("ops 1", with: .failed(code: 503, message: "the chat service is away"))
        try await queue("ops 1", room: "ops")
        try await queue("ops 2", room: "ops")
        try await queue("dev 1", room: "dev")
        #expect(try await delivery.deliverDue() == 1)
        #expect(await room.posted == ["dev 1"], "ops 2 waits behind ops 1, which failed; another lane does not")
        let waiting = try await store.deliveries(.chat, undelivered: true, limit: 10)
        #expect(waiting.map(\.state) == [.queued, .queued] && waiting.last?.lastError == "the chat service is away")
        #expect(waiting.last?.responseCode == 503 && waiting.last?.attempts == 1)

        clock.advance(by: 10)
        #expect(try await delivery.deliverDue() == 0, "not due again before its backoff")
        clock.advance(by: 30)
        #expect(try await delivery.deliverDue() == 2)
        #expect(await room.posted == ["dev 1", "ops 1", "ops 2"])

        await room.answer("archived", with: .refused(code: 403, message: "the room is archived"))
        try await queue("archived", room: "old")
        #expect(try await delivery.deliverDue() == 0)
        let problems = try await store.deliveryProblems(.chat)
        #expect(problems.map(\.bot) == ["app"] && problems.first?.responseCode == 403 && problems.first?.message == "the room is archived")
        #expect(try await store.deliveryCounts(.chat) == [.sent: 3, .givenUp: 1])
        #expect(try await store.nextDeliveryAttempt(.chat) == nil, "nothing is tried again after a refusal")

        let mail = try await store.outbox(limit: 10)
        let refusedStatuses = try await store.statusProblems()
        #expect(mail.queued + mail.sent + mail.failed == 0 && refusedStatuses.isEmpty, "other outputs see none of it")
    }
}
