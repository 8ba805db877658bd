import Foundation
import KilnCore
import Logging
import PostgresNIO

extension PostgresStore {
    public func pullRequests(bot: String, includeClosed: Bool) async throws(StoreError) -> [PullRequestOverview] {
        try await read("reading the pull requests of '\(bot)'") { [logger] connection in
            var overviews: [PullRequestOverview] = []
            for row in try await connection.rows(
                """
                SELECT pull_request.*, (
                    SELECT id FROM integration WHERE integration.bot = pull_request.bot AND integration.pull_number = pull_request.number
                    ORDER BY number DESC LIMIT 1) AS latest_id
                FROM pull_request WHERE bot = \(bot) AND (open OR \(includeClosed)) ORDER BY updated_at DESC, number DESC
                """, logger: logger)
            {
                let pullRequest = PullRequest(
                    number: try row("number"), title: try row("title"), author: try row("author"), url: try row("url"), head: try row("head"),
                    base: try row("base"), ref: try row("ref"), fork: try row("fork"))
                var latest: Integration?
                if let id = try row("latest_id", as: Int64?.self) {
                    latest = try await connection.row("SELECT * FROM integration WHERE id = \(id)", logger: logger).map(Integration.init(postgres:))
                }
                overviews.append(PullRequestOverview(pullRequest: pullRequest, open: try row("open"), latest: latest))
            }
            return overviews
        }
    }

    public func integrationsAwaitingStatus(bots: [String], since: Date, limit: Int) async throws(StoreError) -> [StatusCandidate] {
        guard !bots.isEmpty else { return [] }
        return try await read("reading integrations awaiting a commit status") { [logger] connection in
            try await connection.rows(
                """
                SELECT * FROM integration
                WHERE bot = ANY(\(bots)) AND queued_at >= \(since.storeValue) AND commit_sha IS NOT NULL
                    AND (status_stage IS DISTINCT FROM (CASE step WHEN 'pending' THEN 'queued' WHEN 'completed' THEN 'completed' ELSE 'started' END)
                        OR status_commit IS DISTINCT FROM commit_sha)
                ORDER BY id LIMIT \(limit)
                """, logger: logger
            ).map { row in
                StatusCandidate(
                    integration: try Integration(postgres: row),
                    postedStage: try row("status_stage", as: String?.self).flatMap(StatusStage.init(rawValue:)),
                    postedCommit: try row("status_commit"))
            }
        }
    }

    public func queueStatuses(
        _ statuses: [CommitStatus], for candidate: StatusCandidate, stage: StatusStage, commit: String, now: Date
    ) async throws(StoreError) -> Bool {
        try await write("queueing commit statuses") { [logger] connection in
            let marked = try await connection.row(
                """
                UPDATE integration SET status_stage = \(stage.rawValue), status_commit = \(commit)
                WHERE id = \(candidate.integration.id) AND status_stage IS NOT DISTINCT FROM \(candidate.postedStage?.rawValue)::text
                    AND status_commit IS NOT DISTINCT FROM \(candidate.postedCommit)::text
                RETURNING id
                """, logger: logger)
            guard marked != nil else { return false }
            for status in statuses {
                try await connection.execute(
                    """
                    INSERT INTO forge_status (
                        created_at, bot, integration_id, kind, api_url, project, token_file, sha, context, state, description, target_url, next_attempt_at)
                    VALUES (
                        \(now.storeValue), \(status.bot), \(status.integrationID), \(status.kind.rawValue), \(status.apiURL), \(status.project),
                        \(status.tokenFile), \(status.sha), \(status.context), \(status.state.rawValue), \(status.description), \(status.targetURL),
                        \(now.storeValue))
                    """, logger: logger)
            }
            return true
        }
    }

    public func dueStatuses(now: Date, limit: Int) async throws(StoreError) -> [QueuedStatus] {
        // Rows another host is claiming are skipped, not waited for: each status goes to one host.
        try await write("claiming due commit statuses") { [logger] connection in
            try await connection.rows(
                """
                UPDATE forge_status SET next_attempt_at = \(now.storeValue + MailClaim.duration) WHERE id IN (
                    SELECT id FROM forge_status AS due WHERE delivery = 'queued' AND next_attempt_at <= \(now.storeValue) AND NOT EXISTS (
                        SELECT 1 FROM forge_status AS earlier
                        WHERE earlier.sha = due.sha AND earlier.context = due.context AND earlier.id < due.id
                            AND earlier.project = due.project AND earlier.delivery = 'queued')
                    ORDER BY next_attempt_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING *
                """, logger: logger
            ).map(QueuedStatus.init(postgres:)).sorted { $0.id < $1.id }
        }
    }

    public func nextStatusAttempt() async throws(StoreError) -> Date? {
        try await read("reading the commit statuses") { [logger] connection in
            try await connection.row("SELECT min(next_attempt_at) AS next FROM forge_status WHERE delivery = 'queued'", logger: logger)
                .flatMap { try $0("next", as: Double?.self) }.map(Date.init(storeValue:))
        }
    }

    public func statusSent(_ id: Int64, responseCode: Int, now: Date) async throws(StoreError) {
        try await write("recording a delivered commit status") { [logger] connection in
            try await connection.execute(
                """
                UPDATE forge_status SET delivery = 'sent', sent_at = \(now.storeValue), attempts = attempts + 1, last_error = NULL,
                    response_code = \(responseCode)
                WHERE id = \(id)
                """, logger: logger)
        }
    }

    public func statusFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError) {
        try await write("recording a failed commit status") { [logger] connection in
            let delivery = (retryAt == nil ? QueuedStatus.Delivery.refused : .queued).rawValue
            let refusedAt: Double? = retryAt == nil ? now.storeValue : nil
            try await connection.execute(
                """
                UPDATE forge_status SET delivery = \(delivery), attempts = attempts + 1, last_error = \(error), response_code = \(responseCode),
                    next_attempt_at = \((retryAt ?? now).storeValue), sent_at = \(refusedAt)
                WHERE id = \(id)
                """, logger: logger)
        }
    }

    public func statuses(limit: Int) async throws(StoreError) -> [QueuedStatus] {
        try await read("reading the commit statuses") { [logger] connection in
            try await connection.rows("SELECT * FROM forge_status ORDER BY id DESC LIMIT \(max(0, limit))", logger: logger)
                .map(QueuedStatus.init(postgres:))
        }
    }

    public func statusProblems() async throws(StoreError) -> [StatusProblem] {
        try await read("reading refused commit statuses") { [logger] connection in
            try await connection.rows(
                """
                SELECT refused.* FROM forge_status AS refused
                WHERE refused.id IN (SELECT max(id) FROM forge_status WHERE delivery = 'refused' GROUP BY bot)
                    AND NOT EXISTS (
                        SELECT 1 FROM forge_status AS later WHERE later.delivery = 'sent' AND later.bot = refused.bot AND later.id > refused.id)
                ORDER BY refused.bot
                """, logger: logger
            ).map { row in
                StatusProblem(
                    bot: try row("bot"), responseCode: try row("response_code"), message: try row("last_error", as: String?.self) ?? "refused",
                    at: Date(storeValue: try row("sent_at", as: Double?.self) ?? row("created_at")))
            }
        }
    }
}

extension QueuedStatus {
    init(postgres row: PostgresRandomAccessRow) throws {
        let status = CommitStatus(
            bot: try row("bot"), integrationID: try row("integration_id"), kind: ForgeKind(rawValue: try row("kind")) ?? .github,
            apiURL: try row("api_url"), project: try row("project"), tokenFile: try row("token_file"), sha: try row("sha"),
            context: try row("context"), state: CommitState(rawValue: try row("state")) ?? .error, description: try row("description"),
            targetURL: try row("target_url"))
        self.init(
            id: try row("id"), status: status, delivery: Delivery(rawValue: try row("delivery")) ?? .queued, attempts: try row("attempts"),
            createdAt: Date(storeValue: try row("created_at")), lastError: try row("last_error"), responseCode: try row("response_code"))
    }
}
