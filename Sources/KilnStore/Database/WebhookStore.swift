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

/// Forge deliveries as received, and the integrations they queue (`WebhookInbox`).
struct WebhookStore<Engine: StoreEngine>: WebhookInbox, StoreRole {
    let engine: Engine
}

extension WebhookStore {
    public func receiveWebhook(
        _ delivery: WebhookDelivery, queue requests: [QueueRequest], close closings: [PullRequestClosing], now: Date
    ) async throws(StoreError) -> WebhookReceipt {
        try await write("recording a webhook delivery", notify: .queue) { db in
            let outcomes = try Queueing.enqueue(db, requests, now: now)
            let stopped = try closings.flatMap { try Queueing.close(db, $0, now: now) }
            let reached = (outcomes.map(\.integration) + stopped).map { IntegrationReference(bot: $0.bot, number: $0.number) }
            try db.execute(
                """
                INSERT INTO webhook_delivery (received_at, forge, event, repository, branch, commit_sha, outcome, status_code, integrations, detail)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, delivery.receivedAt, delivery.forge, delivery.event, delivery.repository, delivery.branch, delivery.commit,
                delivery.outcome.rawValue, delivery.statusCode, JSON.encode(reached), delivery.detail)
            return WebhookReceipt(queued: outcomes, stopped: stopped)
        }
    }

    public func webhookDeliveries(limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        try await read("reading webhook deliveries") { db in
            try db.rows("SELECT * FROM webhook_delivery ORDER BY id DESC LIMIT ?", max(0, limit)).map { row in
                WebhookDelivery(
                    forge: row["forge"], event: row["event"], repository: row["repository"], branch: row["branch"], commit: row["commit_sha"],
                    outcome: WebhookDelivery.Outcome(rawValue: row["outcome"]) ?? .ignored, statusCode: row["status_code"], detail: row["detail"],
                    integrations: JSON.decode([IntegrationReference].self, from: row["integrations"], default: []), receivedAt: row["received_at"])
            }
        }
    }
}

extension RecordStore {
    public func statistics(durationBuckets: [Double]) async throws(StoreError) -> StoreStatistics {
        try await read("counting for metrics") { db in
            let byResult = try Self.counts(db, of: "result", in: "integration", as: IntegrationResult.self)
            let active = try db.rows(
                "SELECT CASE WHEN step = 'pending' THEN 1 ELSE 0 END AS queued, count(*) AS n FROM integration WHERE step <> 'completed' GROUP BY 1")
            let count = { (queued: Int) in active.first { $0["queued"] == queued }.map { $0["n"] as Int } ?? 0 }
            let buckets = durationBuckets.map { "coalesce(sum(CASE WHEN ended_at - started_at <= \($0) THEN 1 ELSE 0 END), 0)" }
            let columns = (["count(*)", "coalesce(sum(ended_at - started_at), 0)"] + buckets).joined(separator: ", ")
            let durations =
                try db.rows(
                    "SELECT \(columns) FROM integration WHERE step = 'completed' AND started_at IS NOT NULL AND ended_at IS NOT NULL"
                ).first?.values ?? []
            let figure = { (index: Int) in durations.indices.contains(index) ? Double(sqlValue: durations[index]) ?? 0 : 0 }
            return StoreStatistics(
                integrationsByResult: byResult, queued: count(1), running: count(0),
                durationBucketCounts: durationBuckets.indices.map { Int(figure($0 + 2)) }, durationCount: Int(figure(0)), durationSum: figure(1),
                webhooksByOutcome: try Self.counts(db, of: "outcome", in: "webhook_delivery", as: WebhookDelivery.Outcome.self),
                outboxByState: try Self.counts(db, of: .mail).reduce(into: [:]) { $0[QueuedMail.State($1.key), default: 0] += $1.value })
        }
    }
}
