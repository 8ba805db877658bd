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

/// Everything Kiln remembers: bots as last loaded, integrations and their history, the queue,
/// logs, the outbox (mail, commit statuses, reviews) and webhook deliveries. SQLite (`SQLiteStore`) is the embedded default;
/// `StoreLocation.open` picks the engine, and no caller sees which one it got.
///
/// Threading: every method may be called from any task, and by several processes (or hosts) at
/// once. Each method is one transaction: it sees and leaves the store consistent, and the queue's
/// transitions (queue, coalesce, claim, complete) are atomic, with no state kept in memory
/// between calls.
///
/// Errors: every method throws `StoreError` for infrastructure faults only (the database cannot
/// be reached or written); "nothing found" is an empty or nil result, not an error.
///
/// Services depend on the role they use (`IntegrationQueue`, `HostRegistry`, `MailOutbox`, …),
/// never on the whole: a reader sees what each may touch. `DatabaseStore` implements them all.
public protocol Store: ChangeFeed, IntegrationQueue, HostRegistry, IntegrationRecords, LogsAndAssets, WebhookInbox, Outboxes, MailOutbox,
    StatusOutbox, ReviewOutbox, AccessRecords, WorkspaceCatalog, AuditTrail, ShardQueue
{}

extension WebhookInbox {
    /// Records a push delivery and queues its integrations (`receiveWebhook(_:queue:close:now:)`).
    public func receiveWebhook(_ delivery: WebhookDelivery, queue requests: [QueueRequest], now: Date) async throws(StoreError) -> [QueueOutcome] {
        try await receiveWebhook(delivery, queue: requests, close: [], now: now).queued
    }
}

/// How long a claimed mail waits before another sender may take it: longer than any SMTP
/// attempt takes (libcurl's timeouts end one well within it).
public enum MailClaim {
    public static let duration: TimeInterval = 300
}
