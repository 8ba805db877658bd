import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    public func receiveWebhook(
        _ delivery: WebhookDelivery, queue requests: [QueueRequest], close closings: [PullRequestClosing], now: Date
    ) async throws(StoreError) -> WebhookReceipt {
        try await write("recording a webhook delivery") { db in
            let outcomes = try requests.map { try Self.enqueue(db, $0, now: now) }
            let stopped = try closings.flatMap { try Self.close(db, $0, now: now) }
            let reached = (outcomes.map(\.integration) + stopped).map { IntegrationReference(bot: $0.bot, number: $0.number) }
            try db.cachedStatement(
                sql: """
                    INSERT INTO webhookDelivery (receivedAt, forge, event, repository, branch, commitSha, outcome, statusCode, integrations, detail)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                delivery.receivedAt.storeValue, delivery.forge, delivery.event, delivery.repository, delivery.branch, delivery.commit,
                delivery.outcome.rawValue, delivery.statusCode, JSON.encode(reached), delivery.detail,
            ])
            return WebhookReceipt(queued: outcomes, stopped: stopped)
        }
    }

    public func webhookDeliveries(limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        try await read("reading webhook deliveries") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhookDelivery ORDER BY id DESC LIMIT ?", arguments: [max(0, limit)]).map { row in
                WebhookDelivery(
                    forge: row["forge"], event: row["event"], repository: row["repository"], branch: row["branch"], commit: row["commitSha"],
                    outcome: WebhookDelivery.Outcome(rawValue: row["outcome"] ?? "") ?? .ignored, statusCode: row["statusCode"], detail: row["detail"],
                    integrations: JSON.decode([IntegrationReference].self, from: row["integrations"], default: []),
                    receivedAt: Date(storeValue: row["receivedAt"]))
            }
        }
    }

    public func statistics(durationBuckets: [Double]) async throws(StoreError) -> StoreStatistics {
        try await read("counting for metrics") { db in
            var byResult: [IntegrationResult: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT result, count(*) AS n FROM integration WHERE result IS NOT NULL GROUP BY result") {
                if let result = IntegrationResult(rawValue: row["result"] ?? "") { byResult[result] = row["n"] }
            }
            let active = try Row.fetchAll(
                db, sql: "SELECT step = 'pending' AS queued, count(*) AS n FROM integration WHERE step != 'completed' GROUP BY 1")
            let queued = active.first { $0["queued"] == true }.map { $0["n"] as Int } ?? 0
            let running = active.first { $0["queued"] == false }.map { $0["n"] as Int } ?? 0
            let bucketColumns = durationBuckets.map { "coalesce(sum(endedAt - startedAt <= \($0)), 0)" }
            let columns = (["count(*)", "coalesce(sum(endedAt - startedAt), 0)"] + bucketColumns).joined(separator: ", ")
            let durations = try Row.fetchOne(
                db, sql: "SELECT \(columns) FROM integration WHERE step = 'completed' AND startedAt IS NOT NULL AND endedAt IS NOT NULL")
            var webhooks: [WebhookDelivery.Outcome: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT outcome, count(*) AS n FROM webhookDelivery GROUP BY outcome") {
                if let outcome = WebhookDelivery.Outcome(rawValue: row["outcome"] ?? "") { webhooks[outcome] = row["n"] }
            }
            var outbox: [QueuedMail.State: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, count(*) AS n FROM outbox GROUP BY state") {
                if let state = QueuedMail.State(rawValue: row["state"] ?? "") { outbox[state] = row["n"] }
            }
            return StoreStatistics(
                integrationsByResult: byResult, queued: queued, running: running,
                durationBucketCounts: durationBuckets.indices.map { durations?[$0 + 2] ?? 0 }, durationCount: durations?[0] ?? 0,
                durationSum: durations?[1] ?? 0, webhooksByOutcome: webhooks, outboxByState: outbox)
        }
    }
}
