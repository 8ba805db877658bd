import Foundation
import KilnCore
import Logging
import PostgresNIO

extension PostgresStore {
    public func receiveWebhook(
        _ delivery: WebhookDelivery, queue requests: [QueueRequest], close closings: [PullRequestClosing], now: Date
    ) async throws(StoreError) -> WebhookReceipt {
        try await write("recording a webhook delivery") { [logger] connection in
            var outcomes: [QueueOutcome] = []
            for request in requests { outcomes.append(try await Self.enqueue(connection, request, now: now, logger: logger)) }
            var stopped: [Integration] = []
            for closing in closings { stopped += try await Self.close(connection, closing, now: now, logger: logger) }
            let reached = (outcomes.map(\.integration) + stopped).map { IntegrationReference(bot: $0.bot, number: $0.number) }
            try await connection.execute(
                """
                INSERT INTO webhook_delivery (received_at, forge, event, repository, branch, commit_sha, outcome, status_code, integrations, detail)
                VALUES (\(delivery.receivedAt.storeValue), \(delivery.forge), \(delivery.event), \(delivery.repository), \(delivery.branch),
                    \(delivery.commit), \(delivery.outcome.rawValue), \(delivery.statusCode), \(JSON.encode(reached)), \(delivery.detail))
                """, logger: logger)
            return WebhookReceipt(queued: outcomes, stopped: stopped)
        }
    }

    public func webhookDeliveries(limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        try await read("reading webhook deliveries") { [logger] connection in
            try await connection.rows("SELECT * FROM webhook_delivery ORDER BY id DESC LIMIT \(max(0, limit))", logger: logger).map { row in
                WebhookDelivery(
                    forge: try row("forge"), event: try row("event"), repository: try row("repository"), branch: try row("branch"),
                    commit: try row("commit_sha"), outcome: WebhookDelivery.Outcome(rawValue: try row("outcome")) ?? .ignored,
                    statusCode: try row("status_code"), detail: try row("detail"),
                    integrations: JSON.decode([IntegrationReference].self, from: try row("integrations"), default: []),
                    receivedAt: Date(storeValue: try row("received_at")))
            }
        }
    }

    public func statistics(durationBuckets: [Double]) async throws(StoreError) -> StoreStatistics {
        try await read("counting for metrics") { [logger] connection in
            var byResult: [IntegrationResult: Int] = [:]
            for row in try await connection.rows(
                "SELECT result, count(*) AS n FROM integration WHERE result IS NOT NULL GROUP BY result", logger: logger)
            {
                if let result = IntegrationResult(rawValue: try row("result")) { byResult[result] = try row("n") }
            }
            var queued = 0
            var running = 0
            for row in try await connection.rows(
                "SELECT step = 'pending' AS queued, count(*) AS n FROM integration WHERE step <> 'completed' GROUP BY 1", logger: logger)
            {
                if try row("queued", as: Bool.self) { queued = try row("n") } else { running = try row("n") }
            }
            // The bounds are the histogram's own numbers, never input: written into the SQL.
            let buckets = durationBuckets.enumerated().map { "count(*) FILTER (WHERE ended_at - started_at <= \($1)) AS b\($0)" }
            let durations = try await connection.row(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT \((["count(*) AS n", "coalesce(sum(ended_at - started_at), 0) AS total"] + buckets).joined(separator: ", "))
                        FROM integration WHERE step = 'completed' AND started_at IS NOT NULL AND ended_at IS NOT NULL
                        """), logger: logger)
            var webhooks: [WebhookDelivery.Outcome: Int] = [:]
            for row in try await connection.rows("SELECT outcome, count(*) AS n FROM webhook_delivery GROUP BY outcome", logger: logger) {
                if let outcome = WebhookDelivery.Outcome(rawValue: try row("outcome")) { webhooks[outcome] = try row("n") }
            }
            var outbox: [QueuedMail.State: Int] = [:]
            for row in try await connection.rows("SELECT state, count(*) AS n FROM outbox GROUP BY state", logger: logger) {
                if let state = QueuedMail.State(rawValue: try row("state")) { outbox[state] = try row("n") }
            }
            return StoreStatistics(
                integrationsByResult: byResult, queued: queued, running: running,
                durationBucketCounts: try durationBuckets.indices.map { index in try durations.map { try $0("b\(index)") } ?? 0 },
                durationCount: try durations.map { try $0("n") } ?? 0, durationSum: try durations.map { try $0("total") } ?? 0,
                webhooksByOutcome: webhooks, outboxByState: outbox)
        }
    }
}
