import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    public func queueMail(_ mail: OutgoingMail, now: Date) async throws(StoreError) -> Bool {
        try await write("queueing a mail") { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO outbox (createdAt, bot, integrationId, dedupeKey, recipients, subject, message, nextAttemptAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dedupeKey) DO NOTHING
                    """
            ).execute(arguments: [
                now.storeValue, mail.bot, mail.integrationId, mail.dedupeKey, JSON.encode(mail.recipients), mail.subject, Data(mail.message),
                now.storeValue,
            ])
            return db.changesCount > 0
        }
    }

    public func dueMails(now: Date, limit: Int) async throws(StoreError) -> [QueuedMail] {
        try await write("claiming due mails") { db in
            try Row.fetchAll(
                db,
                sql: """
                    UPDATE outbox SET nextAttemptAt = ? WHERE id IN (
                        SELECT id FROM outbox WHERE state = 'queued' AND nextAttemptAt <= ? ORDER BY nextAttemptAt, id LIMIT ?)
                    RETURNING *
                    """, arguments: [now.storeValue + MailClaim.duration, now.storeValue, limit]
            ).map(QueuedMail.init(row:)).sorted { $0.id < $1.id }
        }
    }

    public func nextMailAttempt() async throws(StoreError) -> Date? {
        try await read("reading the outbox") { db in
            try Double.fetchOne(db, sql: "SELECT min(nextAttemptAt) FROM outbox WHERE state = 'queued'").map(Date.init(storeValue:))
        }
    }

    public func mailSent(_ id: Int64, now: Date) async throws(StoreError) {
        try await write("recording a sent mail") { db in
            try db.execute(
                sql: "UPDATE outbox SET state = 'sent', sentAt = ?, attempts = attempts + 1, lastError = NULL WHERE id = ?",
                arguments: [now.storeValue, id])
        }
    }

    public func mailFailed(_ id: Int64, error: String, retryAt: Date?, now: Date) async throws(StoreError) {
        try await write("recording a failed mail") { db in
            try db.execute(
                sql: "UPDATE outbox SET state = ?, attempts = attempts + 1, lastError = ?, nextAttemptAt = ? WHERE id = ?",
                arguments: [(retryAt == nil ? QueuedMail.State.failed : .queued).rawValue, error, (retryAt ?? now).storeValue, id])
        }
    }

    public func outbox(limit: Int) async throws(StoreError) -> Outbox {
        try await read("reading the outbox") { db in
            var counts: [QueuedMail.State: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, count(*) AS n FROM outbox GROUP BY state") {
                if let state = QueuedMail.State(rawValue: row["state"] ?? "") { counts[state] = row["n"] }
            }
            let undelivered = try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE state != 'sent' ORDER BY id DESC LIMIT ?", arguments: [limit])
                .map(QueuedMail.init(row:))
            return Outbox(queued: counts[.queued] ?? 0, sent: counts[.sent] ?? 0, failed: counts[.failed] ?? 0, undelivered: undelivered)
        }
    }

    public func integrationsToNotify(limit: Int) async throws(StoreError) -> [Integration] {
        try await read("reading integrations to notify") { db in
            try Row.fetchAll(
                try db.cachedStatement(
                    sql: "SELECT * FROM integration WHERE notifiedAt IS NULL AND step = 'completed' ORDER BY id LIMIT ?"),
                arguments: [limit]
            ).map(Integration.init(row:))
        }
    }

    public func markNotified(_ ids: [Int64], now: Date) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        try await write("recording notified integrations") { db in
            for id in ids {
                try db.cachedStatement(sql: "UPDATE integration SET notifiedAt = ? WHERE id = ?").execute(arguments: [now.storeValue, id])
            }
        }
    }

    public func markAllNotified(now: Date) async throws(StoreError) -> Int {
        try await write("recording notified integrations") { db in
            try db.execute(sql: "UPDATE integration SET notifiedAt = ? WHERE notifiedAt IS NULL AND step = 'completed'", arguments: [now.storeValue])
            return db.changesCount
        }
    }

    public func digest(bot: String, from: Date, to: Date) async throws(StoreError) -> DigestFigures {
        try await read("reading the digest of '\(bot)'") { db in
            let range: StatementArguments = [bot, from.storeValue, to.storeValue]
            let inPeriod = "bot = ? AND step = 'completed' AND endedAt >= ? AND endedAt < ? AND pullNumber IS NULL"
            var results: [IntegrationResult: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT result, count(*) AS n FROM integration WHERE \(inPeriod) GROUP BY result", arguments: range)
            {
                if let result = IntegrationResult(rawValue: row["result"] ?? "") { results[result] = row["n"] }
            }
            let average = try Double.fetchOne(
                db, sql: "SELECT avg(endedAt - startedAt) FROM integration WHERE \(inPeriod) AND startedAt IS NOT NULL", arguments: range)
            let issues = try Row.fetchAll(
                db,
                sql: """
                    SELECT issue.status, count(*) AS n FROM issue JOIN integration ON integration.id = issue.integrationId
                    WHERE integration.\(inPeriod.replacingOccurrences(of: " AND ", with: " AND integration.")) GROUP BY issue.status
                    """, arguments: range)
            let count = { (status: String) in issues.first { $0["status"] == status }.map { $0["n"] as Int } ?? 0 }
            let lastWithTests = try Int64.fetchOne(
                db,
                sql: """
                    SELECT id FROM integration WHERE \(inPeriod) AND EXISTS (SELECT 1 FROM testCase WHERE integrationId = integration.id)
                    ORDER BY number DESC LIMIT 1
                    """, arguments: range)
            let slowest =
                try lastWithTests.map { id in
                    try Row.fetchAll(db, sql: "SELECT * FROM testCase WHERE integrationId = ? ORDER BY duration DESC LIMIT 5", arguments: [id]).map {
                        TestCase(
                            suite: $0["suite"], name: $0["name"], status: TestStatus(rawValue: $0["status"] ?? "") ?? .passed,
                            duration: $0["duration"])
                    }
                } ?? []
            let last = try Row.fetchOne(
                db, sql: "SELECT * FROM integration WHERE bot = ? AND step = 'completed' AND endedAt < ? AND pullNumber IS NULL ORDER BY number DESC LIMIT 1",
                arguments: [bot, to.storeValue]
            ).map(Integration.init(row:))
            return DigestFigures(
                results: results, count: results.values.reduce(0, +), averageDuration: average, issuesIntroduced: count("new"),
                issuesResolved: count("resolved"), slowestTests: slowest, last: last)
        }
    }
}

extension QueuedMail {
    init(row: Row) {
        let message: Data = row["message"]
        self.init(
            id: row["id"], dedupeKey: row["dedupeKey"], recipients: JSON.decode([String].self, from: row["recipients"], default: []),
            subject: row["subject"], message: Array(message), state: QueuedMail.State(rawValue: row["state"] ?? "") ?? .queued, attempts: row["attempts"],
            createdAt: Date(storeValue: row["createdAt"]), nextAttemptAt: Date(storeValue: row["nextAttemptAt"]), lastError: row["lastError"])
    }
}
