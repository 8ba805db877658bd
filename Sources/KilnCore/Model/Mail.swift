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

/// A mail to put in the outbox.
public struct OutgoingMail: Sendable, Hashable {
    /// Same key, same mail: a second one with this key is not queued.
    public var dedupeKey: String
    public var bot: String?
    public var integrationId: Int64?
    public var recipients: [String]
    public var subject: String
    /// The whole message as sent.
    public var message: [UInt8]

    public init(dedupeKey: String, bot: String? = nil, integrationId: Int64? = nil, recipients: [String], subject: String, message: [UInt8]) {
        self.dedupeKey = dedupeKey
        self.bot = bot
        self.integrationId = integrationId
        self.recipients = recipients
        self.subject = subject
        self.message = message
    }
}

/// A mail in the outbox.
public struct QueuedMail: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, CaseIterable, Codable {
        case queued, sent, failed
    }

    public var id: Int64
    public var dedupeKey: String?
    public var recipients: [String]
    public var subject: String
    public var message: [UInt8]
    public var state: State
    public var attempts: Int
    public var createdAt: Date
    public var nextAttemptAt: Date
    public var lastError: String?
    /// The SMTP server's reply code to the last attempt, where it gave one.
    public var responseCode: Int?

    public init(
        id: Int64, dedupeKey: String?, recipients: [String], subject: String, message: [UInt8], state: State, attempts: Int, createdAt: Date,
        nextAttemptAt: Date, lastError: String?, responseCode: Int? = nil
    ) {
        self.id = id
        self.dedupeKey = dedupeKey
        self.recipients = recipients
        self.subject = subject
        self.message = message
        self.state = state
        self.attempts = attempts
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.responseCode = responseCode
    }
}

/// The outbox as `kiln status` shows it.
extension OutgoingMail {
    /// The mail as the outbox keeps it: recipients and subject as its fields, the message as it is.
    public var outboxDelivery: NewDelivery {
        NewDelivery(
            kind: .mail, dedupeKey: dedupeKey, bot: bot, integrationID: integrationId, item: Fields(recipients: recipients, subject: subject),
            body: message)
    }

    struct Fields: Codable {
        var recipients: [String]
        var subject: String
    }
}

extension QueuedMail {
    /// Nil for a delivery that is no mail, or one this version cannot read.
    public init?(_ stored: StoredDelivery) {
        guard stored.kind == .mail, let fields = stored.item(OutgoingMail.Fields.self) else { return nil }
        self.init(
            id: stored.id, dedupeKey: stored.queued.dedupeKey, recipients: fields.recipients, subject: fields.subject,
            message: stored.queued.body ?? [],
            state: State(stored.state), attempts: stored.attempts, createdAt: stored.createdAt, nextAttemptAt: stored.nextAttemptAt,
            lastError: stored.lastError, responseCode: stored.responseCode)
    }
}

extension QueuedMail.State {
    /// A mail given up is `failed`, as `kiln status` and the metrics have always said.
    public init(_ state: OutboxState) { self = state == .givenUp ? .failed : Self(rawValue: state.rawValue) ?? .queued }
}

public struct Outbox: Sendable, Hashable {
    public var queued: Int
    public var sent: Int
    public var failed: Int
    /// Mails queued or failed, newest first.
    public var undelivered: [QueuedMail]

    public init(queued: Int, sent: Int, failed: Int, undelivered: [QueuedMail]) {
        self.queued = queued
        self.sent = sent
        self.failed = failed
        self.undelivered = undelivered
    }
}

/// A bot's integrations over a period, for daily and weekly digests.
public struct DigestFigures: Sendable, Hashable {
    public var results: [IntegrationResult: Int]
    public var count: Int
    /// Seconds; nil without completed integrations.
    public var averageDuration: Double?
    public var issuesIntroduced: Int
    public var issuesResolved: Int
    /// The slowest tests of the period's last integration with tests, slowest first.
    public var slowestTests: [TestCase]
    /// The bot's last completed integration up to the end of the period.
    public var last: Integration?
    /// The tests that were flaky in the period (`Suite.name`), most often first, with how often.
    public var flakyTests: [FlakyCount]

    public init(
        results: [IntegrationResult: Int], count: Int, averageDuration: Double?, issuesIntroduced: Int, issuesResolved: Int, slowestTests: [TestCase],
        last: Integration?, flakyTests: [FlakyCount] = []
    ) {
        self.results = results
        self.count = count
        self.averageDuration = averageDuration
        self.issuesIntroduced = issuesIntroduced
        self.issuesResolved = issuesResolved
        self.slowestTests = slowestTests
        self.last = last
        self.flakyTests = flakyTests
    }
}

/// A test that was flaky in a digest's period, and how many times.
public struct FlakyCount: Sendable, Hashable {
    /// `Suite.name`.
    public var name: String
    public var times: Int

    public init(name: String, times: Int) {
        self.name = name
        self.times = times
    }
}
