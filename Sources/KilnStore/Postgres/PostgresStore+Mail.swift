import Foundation
import KilnCore
import Logging
import PostgresNIO

extension PostgresStore {
    public func queueMail(_ mail: OutgoingMail, now: Date) async throws(StoreError) -> Bool {
        try await write("queueing a mail") { [logger] connection in
            try await connection.row(
                """
                INSERT INTO outbox (created_at, bot, integration_id, dedupe_key, recipients, subject, message, next_attempt_at)
                VALUES (\(now.storeValue), \(mail.bot), \(mail.integrationId), \(mail.dedupeKey), \(JSON.encode(mail.recipients)), \(mail.subject),
                    \(ByteBuffer(bytes: mail.message)), \(now.storeValue))
                ON CONFLICT (dedupe_key) DO NOTHING
                RETURNING id
                """, logger: logger) != nil
        }
    }

    public func dueMails(now: Date, limit: Int) async throws(StoreError) -> [QueuedMail] {
        // Rows another host is claiming are skipped, not waited for: each mail goes to one host.
        try await write("claiming due mails") { [logger] connection in
            try await connection.rows(
                """
                UPDATE outbox SET next_attempt_at = \(now.storeValue + MailClaim.duration) WHERE id IN (
                    SELECT id FROM outbox WHERE state = 'queued' AND next_attempt_at <= \(now.storeValue)
                    ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING *
                """, logger: logger
            ).map(QueuedMail.init(postgres:)).sorted { $0.id < $1.id }
        }
    }

    public func nextMailAttempt() async throws(StoreError) -> Date? {
        try await read("reading the outbox") { [logger] connection in
            try await connection.row("SELECT min(next_attempt_at) AS next FROM outbox WHERE state = 'queued'", logger: logger)
                .flatMap { try $0("next", as: Double?.self) }.map(Date.init(storeValue:))
        }
    }

    public func mailSent(_ id: Int64, now: Date) async throws(StoreError) {
        try await write("recording a sent mail") { [logger] connection in
            try await connection.execute(
                "UPDATE outbox SET state = 'sent', sent_at = \(now.storeValue), attempts = attempts + 1, last_error = NULL WHERE id = \(id)",
                logger: logger)
        }
    }

    public func mailFailed(_ id: Int64, error: String, retryAt: Date?, now: Date) async throws(StoreError) {
        try await write("recording a failed mail") { [logger] connection in
            let state = (retryAt == nil ? QueuedMail.State.failed : .queued).rawValue
            try await connection.execute(
                """
                UPDATE outbox SET state = \(state), attempts = attempts + 1, last_error = \(error), next_attempt_at = \((retryAt ?? now).storeValue)
                WHERE id = \(id)
                """, logger: logger)
        }
    }

    public func outbox(limit: Int) async throws(StoreError) -> Outbox {
        try await read("reading the outbox") { [logger] connection in
            var counts: [QueuedMail.State: Int] = [:]
            for row in try await connection.rows("SELECT state, count(*) AS n FROM outbox GROUP BY state", logger: logger) {
                if let state = QueuedMail.State(rawValue: try row("state")) { counts[state] = try row("n") }
            }
            let undelivered = try await connection.rows("SELECT * FROM outbox WHERE state <> 'sent' ORDER BY id DESC LIMIT \(limit)", logger: logger)
                .map(QueuedMail.init(postgres:))
            return Outbox(queued: counts[.queued] ?? 0, sent: counts[.sent] ?? 0, failed: counts[.failed] ?? 0, undelivered: undelivered)
        }
    }

    public func integrationsToNotify(limit: Int) async throws(StoreError) -> [Integration] {
        try await read("reading integrations to notify") { [logger] connection in
            try await connection.rows(
                "SELECT * FROM integration WHERE notified_at IS NULL AND step = 'completed' ORDER BY id LIMIT \(limit)", logger: logger
            ).map(Integration.init(postgres:))
        }
    }

    public func markNotified(_ ids: [Int64], now: Date) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        try await write("recording notified integrations") { [logger] connection in
            try await connection.execute("UPDATE integration SET notified_at = \(now.storeValue) WHERE id = ANY(\(ids))", logger: logger)
        }
    }

    public func markAllNotified(now: Date) async throws(StoreError) -> Int {
        try await write("recording notified integrations") { [logger] connection in
            try await connection.rows(
                "UPDATE integration SET notified_at = \(now.storeValue) WHERE notified_at IS NULL AND step = 'completed' RETURNING id", logger: logger
            ).count
        }
    }

    public func digest(bot: String, from: Date, to: Date) async throws(StoreError) -> DigestFigures {
        try await read("reading the digest of '\(bot)'") { [logger] connection in
            let (start, end) = (from.storeValue, to.storeValue)
            var results: [IntegrationResult: Int] = [:]
            for row in try await connection.rows(
                """
                SELECT result, count(*) AS n FROM integration
                WHERE bot = \(bot) AND step = 'completed' AND ended_at >= \(start) AND ended_at < \(end) AND pull_number IS NULL GROUP BY result
                """, logger: logger)
            {
                if let result = IntegrationResult(rawValue: try row("result", as: String?.self) ?? "") { results[result] = try row("n") }
            }
            let average = try await connection.row(
                """
                SELECT avg(ended_at - started_at) AS average FROM integration
                WHERE bot = \(bot) AND step = 'completed' AND ended_at >= \(start) AND ended_at < \(end) AND started_at IS NOT NULL AND pull_number IS NULL
                """, logger: logger
            ).flatMap { try $0("average", as: Double?.self) }
            var issues: [String: Int] = [:]
            for row in try await connection.rows(
                """
                SELECT issue.status, count(*) AS n FROM issue JOIN integration ON integration.id = issue.integration_id
                WHERE integration.bot = \(bot) AND integration.step = 'completed' AND integration.ended_at >= \(start)
                    AND integration.ended_at < \(end) AND integration.pull_number IS NULL
                GROUP BY issue.status
                """, logger: logger)
            {
                issues[try row("status")] = try row("n")
            }
            let lastWithTests = try await connection.row(
                """
                SELECT id FROM integration
                WHERE bot = \(bot) AND step = 'completed' AND ended_at >= \(start) AND ended_at < \(end) AND pull_number IS NULL
                    AND EXISTS (SELECT 1 FROM test_case WHERE integration_id = integration.id)
                ORDER BY number DESC LIMIT 1
                """, logger: logger
            ).map { try $0("id", as: Int64.self) }
            var slowest: [TestCase] = []
            if let lastWithTests {
                slowest = try await connection.rows(
                    "SELECT * FROM test_case WHERE integration_id = \(lastWithTests) ORDER BY duration DESC LIMIT 5", logger: logger
                ).map {
                    TestCase(
                        suite: try $0("suite"), name: try $0("name"), status: TestStatus(rawValue: try $0("status")) ?? .passed,
                        duration: try $0("duration"))
                }
            }
            let last = try await connection.row(
                "SELECT * FROM integration WHERE bot = \(bot) AND step = 'completed' AND ended_at < \(end) AND pull_number IS NULL ORDER BY number DESC LIMIT 1",
                logger: logger
            ).map(Integration.init(postgres:))
            return DigestFigures(
                results: results, count: results.values.reduce(0, +), averageDuration: average, issuesIntroduced: issues["new"] ?? 0,
                issuesResolved: issues["resolved"] ?? 0, slowestTests: slowest, last: last)
        }
    }
}

extension QueuedMail {
    init(postgres row: PostgresRandomAccessRow) throws {
        var message: ByteBuffer = try row("message")
        self.init(
            id: try row("id"), dedupeKey: try row("dedupe_key"), recipients: JSON.decode([String].self, from: try row("recipients"), default: []),
            subject: try row("subject"), message: message.readBytes(length: message.readableBytes) ?? [],
            state: QueuedMail.State(rawValue: try row("state")) ?? .queued, attempts: try row("attempts"),
            createdAt: Date(storeValue: try row("created_at")), nextAttemptAt: Date(storeValue: try row("next_attempt_at")),
            lastError: try row("last_error"))
    }
}
