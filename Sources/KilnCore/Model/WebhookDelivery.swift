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

/// One webhook request as it was answered.
public struct WebhookDelivery: Sendable, Hashable {
    /// How a delivery was answered; the raw values appear in `/metrics`.
    public enum Outcome: String, Sendable, Hashable, CaseIterable, Codable {
        case queued
        case ignored
        case unauthorized
        case malformed
        case tooLarge = "too-large"
        /// A pull request was closed or merged: what was queued or running for it was stopped.
        case closed
    }

    public var forge: String
    /// The forge's event name (`push`, `Push Hook`, `ping`), empty when it sent none.
    public var event: String
    /// Redacted repository URL from the payload.
    public var repository: String?
    public var branch: String?
    public var commit: String?
    public var outcome: Outcome
    public var statusCode: Int
    /// Why it was ignored or refused.
    public var detail: String?
    /// Integrations it reached (queued, or coalesced into): filled in when read back.
    public var integrations: [IntegrationReference]
    public var receivedAt: Date

    public init(
        forge: String, event: String, repository: String? = nil, branch: String? = nil, commit: String? = nil, outcome: Outcome, statusCode: Int,
        detail: String? = nil, integrations: [IntegrationReference] = [], receivedAt: Date
    ) {
        self.forge = forge
        self.event = event
        self.repository = repository
        self.branch = branch
        self.commit = commit
        self.outcome = outcome
        self.statusCode = statusCode
        self.detail = detail
        self.integrations = integrations
        self.receivedAt = receivedAt
    }
}

/// What recording a delivery did.
public struct WebhookReceipt: Sendable, Hashable {
    /// The integrations it queued or was coalesced into.
    public var queued: [QueueOutcome]
    /// The integrations of closed pull requests it canceled (queued) or asked to stop (running).
    public var stopped: [Integration]

    public init(queued: [QueueOutcome], stopped: [Integration]) {
        self.queued = queued
        self.stopped = stopped
    }
}

/// Counts over everything stored, for `/metrics`. Each count only grows (retention keeps summaries).
public struct StoreStatistics: Sendable, Hashable {
    /// Completed integrations by result.
    public var integrationsByResult: [IntegrationResult: Int]
    public var queued: Int
    public var running: Int
    /// Completed integrations whose duration was at most each bucket's bound, in the buckets' order.
    public var durationBucketCounts: [Int]
    public var durationCount: Int
    public var durationSum: Double
    public var webhooksByOutcome: [WebhookDelivery.Outcome: Int]
    public var outboxByState: [QueuedMail.State: Int]

    public init(
        integrationsByResult: [IntegrationResult: Int], queued: Int, running: Int, durationBucketCounts: [Int], durationCount: Int,
        durationSum: Double, webhooksByOutcome: [WebhookDelivery.Outcome: Int], outboxByState: [QueuedMail.State: Int]
    ) {
        self.integrationsByResult = integrationsByResult
        self.queued = queued
        self.running = running
        self.durationBucketCounts = durationBucketCounts
        self.durationCount = durationCount
        self.durationSum = durationSum
        self.webhooksByOutcome = webhooksByOutcome
        self.outboxByState = outboxByState
    }
}
