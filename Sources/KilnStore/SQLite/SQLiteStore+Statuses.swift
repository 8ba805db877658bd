import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    public func pullRequests(bot: String, includeClosed: Bool) async throws(StoreError) -> [PullRequestOverview] {
        try await read("reading the pull requests of '\(bot)'") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT pullRequest.*, (
                        SELECT id FROM integration WHERE integration.bot = pullRequest.bot AND integration.pullNumber = pullRequest.number
                        ORDER BY number DESC LIMIT 1) AS latestId
                    FROM pullRequest WHERE bot = ? AND (open OR ?) ORDER BY updatedAt DESC, number DESC
                    """, arguments: [bot, includeClosed]
            ).map { row in
                let pullRequest = PullRequest(
                    number: row["number"], title: row["title"], author: row["author"], url: row["url"], head: row["head"], base: row["base"],
                    ref: row["ref"], fork: row["fork"])
                let latest = try (row["latestId"] as Int64?).flatMap { id in
                    try Row.fetchOne(db, sql: "SELECT * FROM integration WHERE id = ?", arguments: [id]).map(Integration.init(row:))
                }
                return PullRequestOverview(pullRequest: pullRequest, open: row["open"], latest: latest)
            }
        }
    }

    public func integrationsAwaitingStatus(bots: [String], since: Date, limit: Int) async throws(StoreError) -> [StatusCandidate] {
        guard !bots.isEmpty else { return [] }
        return try await read("reading integrations awaiting a commit status") { db in
            let placeholders = Array(repeating: "?", count: bots.count).joined(separator: ", ")
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM integration
                    WHERE bot IN (\(placeholders)) AND queuedAt >= ? AND commitSha IS NOT NULL
                        AND (statusStage IS NOT (CASE step WHEN 'pending' THEN 'queued' WHEN 'completed' THEN 'completed' ELSE 'started' END)
                            OR statusCommit IS NOT commitSha)
                    ORDER BY id LIMIT ?
                    """, arguments: StatementArguments(bots) + [since.storeValue, limit]
            ).map { row in
                StatusCandidate(
                    integration: Integration(row: row), postedStage: (row["statusStage"] as String?).flatMap(StatusStage.init(rawValue:)),
                    postedCommit: row["statusCommit"])
            }
        }
    }

    public func queueStatuses(
        _ statuses: [CommitStatus], for candidate: StatusCandidate, stage: StatusStage, commit: String, now: Date
    ) async throws(StoreError) -> Bool {
        try await write("queueing commit statuses") { db in
            try db.cachedStatement(
                sql: "UPDATE integration SET statusStage = ?, statusCommit = ? WHERE id = ? AND statusStage IS ? AND statusCommit IS ?"
            ).execute(arguments: [
                stage.rawValue, commit, candidate.integration.id, candidate.postedStage?.rawValue, candidate.postedCommit,
            ])
            guard db.changesCount > 0 else { return false }
            for status in statuses {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO forgeStatus (
                            createdAt, bot, integrationId, kind, apiUrl, project, tokenFile, sha, context, state, description, targetUrl, nextAttemptAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """
                ).execute(arguments: [
                    now.storeValue, status.bot, status.integrationID, status.kind.rawValue, status.apiURL, status.project, status.tokenFile,
                    status.sha, status.context, status.state.rawValue, status.description, status.targetURL, now.storeValue,
                ])
            }
            return true
        }
    }

    public func dueStatuses(now: Date, limit: Int) async throws(StoreError) -> [QueuedStatus] {
        try await write("claiming due commit statuses") { db in
            try Row.fetchAll(
                db,
                sql: """
                    UPDATE forgeStatus SET nextAttemptAt = ? WHERE id IN (
                        SELECT id FROM forgeStatus AS due WHERE delivery = 'queued' AND nextAttemptAt <= ? AND NOT EXISTS (
                            SELECT 1 FROM forgeStatus AS earlier
                            WHERE earlier.sha = due.sha AND earlier.context = due.context AND earlier.id < due.id
                                AND earlier.project = due.project AND earlier.delivery = 'queued')
                        ORDER BY nextAttemptAt, id LIMIT ?)
                    RETURNING *
                    """, arguments: [now.storeValue + MailClaim.duration, now.storeValue, limit]
            ).map(QueuedStatus.init(row:)).sorted { $0.id < $1.id }
        }
    }

    public func nextStatusAttempt() async throws(StoreError) -> Date? {
        try await read("reading the commit statuses") { db in
            try Double.fetchOne(db, sql: "SELECT min(nextAttemptAt) FROM forgeStatus WHERE delivery = 'queued'").map(Date.init(storeValue:))
        }
    }

    public func statusSent(_ id: Int64, responseCode: Int, now: Date) async throws(StoreError) {
        try await write("recording a delivered commit status") { db in
            try db.execute(
                sql: """
                    UPDATE forgeStatus SET delivery = 'sent', sentAt = ?, attempts = attempts + 1, lastError = NULL, responseCode = ? WHERE id = ?
                    """, arguments: [now.storeValue, responseCode, id])
        }
    }

    public func statusFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError) {
        try await write("recording a failed commit status") { db in
            try db.execute(
                sql: """
                    UPDATE forgeStatus SET delivery = ?, attempts = attempts + 1, lastError = ?, responseCode = ?, nextAttemptAt = ?, sentAt = ?
                    WHERE id = ?
                    """,
                arguments: [
                    (retryAt == nil ? QueuedStatus.Delivery.refused : .queued).rawValue, error, responseCode, (retryAt ?? now).storeValue,
                    retryAt == nil ? now.storeValue : nil, id,
                ])
        }
    }

    public func statuses(limit: Int) async throws(StoreError) -> [QueuedStatus] {
        try await read("reading the commit statuses") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM forgeStatus ORDER BY id DESC LIMIT ?", arguments: [max(0, limit)]).map(QueuedStatus.init(row:))
        }
    }

    public func statusProblems() async throws(StoreError) -> [StatusProblem] {
        try await read("reading refused commit statuses") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT refused.* FROM forgeStatus AS refused
                    WHERE refused.id IN (SELECT max(id) FROM forgeStatus WHERE delivery = 'refused' GROUP BY bot)
                        AND NOT EXISTS (
                            SELECT 1 FROM forgeStatus AS later WHERE later.delivery = 'sent' AND later.bot = refused.bot AND later.id > refused.id)
                    ORDER BY refused.bot
                    """
            ).map { row in
                StatusProblem(
                    bot: row["bot"], responseCode: row["responseCode"], message: row["lastError"] ?? "refused",
                    at: Date(storeValue: row["sentAt"] ?? row["createdAt"]))
            }
        }
    }
}

extension QueuedStatus {
    init(row: Row) {
        let status = CommitStatus(
            bot: row["bot"], integrationID: row["integrationId"], kind: ForgeKind(rawValue: row["kind"] ?? "") ?? .github, apiURL: row["apiUrl"],
            project: row["project"], tokenFile: row["tokenFile"], sha: row["sha"], context: row["context"],
            state: CommitState(rawValue: row["state"] ?? "") ?? .error, description: row["description"], targetURL: row["targetUrl"])
        self.init(
            id: row["id"], status: status, delivery: Delivery(rawValue: row["delivery"] ?? "") ?? .queued, attempts: row["attempts"],
            createdAt: Date(storeValue: row["createdAt"]), lastError: row["lastError"], responseCode: row["responseCode"])
    }
}
