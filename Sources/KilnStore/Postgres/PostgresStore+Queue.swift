import Foundation
import KilnCore
import Logging
import PostgresNIO

extension PostgresStore {
    public func syncBots(_ bots: [BotState], now: Date) async throws(StoreError) {
        try await write("recording the loaded bots") { [logger] connection in
            try await connection.execute("UPDATE bot SET loaded = false", logger: logger)
            for bot in bots {
                try await connection.execute(
                    """
                    INSERT INTO bot (name, file, repository, branch, problems, loaded, updated_at)
                    VALUES (\(bot.name), \(bot.file), \(bot.repository), \(bot.branch), \(JSON.encode(bot.problems)), true, \(now.storeValue))
                    ON CONFLICT (name) DO UPDATE SET file = excluded.file, repository = excluded.repository, branch = excluded.branch,
                        problems = excluded.problems, loaded = true, updated_at = excluded.updated_at
                    """, logger: logger)
            }
        }
    }

    public func enqueue(_ request: QueueRequest, now: Date) async throws(StoreError) -> QueueOutcome {
        try await write("queueing an integration of '\(request.bot)'") { [logger] connection in
            try await Self.enqueue(connection, request, now: now, logger: logger)
        }
    }

    /// Queues, or coalesces, within the caller's transaction. The bot's row is locked first: it
    /// orders this with claims of the same bot on every host.
    static func enqueue(_ connection: PostgresConnection, _ request: QueueRequest, now: Date, logger: Logger) async throws -> QueueOutcome {
        try await connection.execute(
            "INSERT INTO bot (name, branch, updated_at) VALUES (\(request.bot), \(request.branch), \(now.storeValue)) ON CONFLICT (name) DO NOTHING",
            logger: logger)
        guard try await connection.row("SELECT name FROM bot WHERE name = \(request.bot) FOR UPDATE", logger: logger) != nil else {
            throw StoreError.notFound(what: "bot '\(request.bot)'")
        }
        let lane = request.pullRequest?.number
        var superseded: [Int64] = []
        if request.cancelSuperseded, let commit = request.commit {
            superseded = try await connection.rows(
                """
                UPDATE integration SET cancel_requested = \(StoreRules.supersededReason(commit))
                WHERE bot = \(request.bot) AND step NOT IN ('pending', 'completed') AND commit_sha IS NOT NULL AND commit_sha <> \(commit)
                    AND cancel_requested IS NULL AND pull_number IS NOT DISTINCT FROM \(lane)::bigint
                RETURNING id
                """, logger: logger
            ).map { try $0("id") }
        }
        if let pullRequest = request.pullRequest { try await record(connection, pullRequest, bot: request.bot, open: true, now: now, logger: logger) }
        if let queued = try await connection.row(
            "SELECT * FROM integration WHERE bot = \(request.bot) AND step = 'pending' AND pull_number IS NOT DISTINCT FROM \(lane)::bigint",
            logger: logger)
        {
            var integration = try Integration(postgres: queued)
            if let commit = request.commit, commit != integration.commit {
                try await connection.execute("UPDATE integration SET commit_sha = \(commit) WHERE id = \(integration.id)", logger: logger)
                integration.commit = commit
            }
            if let pullRequest = request.pullRequest, pullRequest != integration.pullRequest {
                try await connection.execute(
                    """
                    UPDATE integration SET pull_title = \(pullRequest.title), pull_author = \(pullRequest.author), pull_url = \(pullRequest.url),
                        pull_head = \(pullRequest.head), pull_base = \(pullRequest.base), pull_ref = \(pullRequest.ref), pull_fork = \(pullRequest.fork)
                    WHERE id = \(integration.id)
                    """, logger: logger)
                integration.pullRequest = pullRequest
            }
            return QueueOutcome(integration: integration, coalesced: true, superseded: superseded)
        }
        if let latest = try await connection.row(
            """
            SELECT * FROM integration WHERE bot = \(request.bot) AND step <> 'pending' AND pull_number IS NOT DISTINCT FROM \(lane)::bigint
            ORDER BY number DESC LIMIT 1
            """, logger: logger),
            StoreRules.reaches(request, latest: try Integration(postgres: latest), cancelRequested: try latest("cancel_requested", as: String?.self) != nil)
        {
            return QueueOutcome(integration: try Integration(postgres: latest), coalesced: true, superseded: superseded)
        }
        guard
            let numbered = try await connection.row(
                "UPDATE bot SET next_number = next_number + 1 WHERE name = \(request.bot) RETURNING next_number - 1 AS number", logger: logger)
        else { throw StoreError.notFound(what: "bot '\(request.bot)'") }
        let number: Int = try numbered("number")
        let pull = request.pullRequest
        guard
            let row = try await connection.row(
                """
                INSERT INTO integration (
                    bot, number, cause, commit_sha, branch, step, queued_at,
                    pull_number, pull_title, pull_author, pull_url, pull_head, pull_base, pull_ref, pull_fork)
                VALUES (
                    \(request.bot), \(number), \(request.cause.rawValue), \(request.commit), \(request.branch), 'pending', \(now.storeValue),
                    \(pull?.number), \(pull?.title), \(pull?.author), \(pull?.url), \(pull?.head), \(pull?.base), \(pull?.ref), \(pull?.fork ?? false))
                RETURNING *
                """, logger: logger)
        else { throw StoreError.query(what: "queueing", reason: "no row returned") }
        return QueueOutcome(integration: try Integration(postgres: row), coalesced: false, superseded: superseded)
    }

    /// Records a pull request as the forge last described it, open or closed.
    static func record(_ connection: PostgresConnection, _ pullRequest: PullRequest, bot: String, open: Bool, now: Date, logger: Logger) async throws {
        try await connection.execute(
            """
            INSERT INTO pull_request (bot, number, title, author, url, head, base, ref, fork, open, updated_at)
            VALUES (
                \(bot), \(pullRequest.number), \(pullRequest.title), \(pullRequest.author), \(pullRequest.url), \(pullRequest.head),
                \(pullRequest.base), \(pullRequest.ref), \(pullRequest.fork), \(open), \(now.storeValue))
            ON CONFLICT (bot, number) DO UPDATE SET title = excluded.title, author = excluded.author, url = excluded.url, head = excluded.head,
                base = excluded.base, ref = excluded.ref, fork = excluded.fork, open = excluded.open, updated_at = excluded.updated_at
            """, logger: logger)
    }

    /// Closes a pull request for a bot: its queued integration ends as canceled, its running one is
    /// asked to stop. Returns the integrations it reached.
    static func close(_ connection: PostgresConnection, _ closing: PullRequestClosing, now: Date, logger: Logger) async throws -> [Integration] {
        try await connection.execute(
            "UPDATE pull_request SET open = false, updated_at = \(now.storeValue) WHERE bot = \(closing.bot) AND number = \(closing.number)",
            logger: logger)
        let canceled = try await connection.rows(
            """
            UPDATE integration SET step = 'completed', result = 'canceled', reason = \(closing.reason), ended_at = \(now.storeValue)
            WHERE bot = \(closing.bot) AND step = 'pending' AND pull_number = \(closing.number)
            RETURNING *
            """, logger: logger
        ).map { try Integration(postgres: $0) }
        let stopping = try await connection.rows(
            """
            UPDATE integration SET cancel_requested = \(closing.reason)
            WHERE bot = \(closing.bot) AND step NOT IN ('pending', 'completed') AND pull_number = \(closing.number) AND cancel_requested IS NULL
            RETURNING *
            """, logger: logger
        ).map { try Integration(postgres: $0) }
        return canceled + stopping
    }

    public func claimNext(owner: String, now: Date) async throws(StoreError) -> Claim? {
        try await write("claiming a queued integration") { [logger] connection in
            // The queued row and its bot's row are locked together, skipping those another host
            // holds: a bot being queued or claimed elsewhere waits for the next look.
            guard
                let candidate = try await connection.row(
                    """
                    SELECT queued.id FROM integration AS queued JOIN bot ON bot.name = queued.bot
                    WHERE queued.step = 'pending' AND NOT EXISTS (
                        SELECT 1 FROM integration AS running
                        WHERE running.bot = queued.bot AND running.step NOT IN ('pending', 'completed'))
                    ORDER BY queued.queued_at, queued.id
                    LIMIT 1
                    FOR UPDATE OF queued, bot SKIP LOCKED
                    """, logger: logger)
            else { return nil }
            return try await Self.start(connection, id: try candidate("id"), owner: owner, now: now, logger: logger)
        }
    }

    public func claim(_ id: Int64, owner: String, now: Date) async throws(StoreError) -> Claim? {
        try await write("claiming integration \(id)") { [logger] connection in
            guard
                try await connection.row(
                    """
                    SELECT queued.id FROM integration AS queued JOIN bot ON bot.name = queued.bot
                    WHERE queued.id = \(id) AND queued.step = 'pending' AND NOT EXISTS (
                        SELECT 1 FROM integration AS running
                        WHERE running.bot = queued.bot AND running.step NOT IN ('pending', 'completed'))
                    FOR UPDATE OF queued, bot
                    """, logger: logger) != nil
            else { return nil }
            return try await Self.start(connection, id: id, owner: owner, now: now, logger: logger)
        }
    }

    private static func start(_ connection: PostgresConnection, id: Int64, owner: String, now: Date, logger: Logger) async throws -> Claim? {
        let token = StoreRules.newToken()
        guard
            let row = try await connection.row(
                """
                UPDATE integration SET step = 'checkout', started_at = \(now.storeValue), owner = \(owner),
                    host = \(ProcessOwner.host(of: owner)), claim_token = \(token)
                WHERE id = \(id) RETURNING *
                """, logger: logger)
        else { return nil }
        try await connection.execute(
            "INSERT INTO step (integration_id, name, started_at) VALUES (\(id), 'checkout', \(now.storeValue))", logger: logger)
        return Claim(integration: try Integration(postgres: row), token: token)
    }

    /// Throws `claimLost` unless `claim` still holds its integration, whose row it locks.
    static func checkClaim(_ connection: PostgresConnection, _ claim: Claim, logger: Logger) async throws {
        let row = try await connection.row(
            "SELECT step, claim_token, reason FROM integration WHERE id = \(claim.id) FOR UPDATE", logger: logger)
        if let refusal = StoreRules.refusal(
            of: claim, step: (try row?("step", as: String.self)).flatMap(IntegrationStep.init(rawValue:)), token: try row?("claim_token"),
            reason: try row?("reason"))
        {
            throw refusal
        }
    }

    public func advance(_ claim: Claim, to step: IntegrationStep, now: Date) async throws(StoreError) {
        try await write("recording step \(step.rawValue)") { [logger] connection in
            try await Self.checkClaim(connection, claim, logger: logger)
            let id = claim.id
            try await Self.closeSteps(connection, id, now: now, logger: logger)
            try await connection.execute("UPDATE integration SET step = \(step.rawValue) WHERE id = \(id)", logger: logger)
            if step != .completed {
                try await connection.execute(
                    """
                    INSERT INTO step (integration_id, name, started_at) VALUES (\(id), \(step.rawValue), \(now.storeValue))
                    ON CONFLICT (integration_id, name) DO UPDATE SET started_at = excluded.started_at, duration = NULL
                    """, logger: logger)
            }
        }
    }

    static func closeSteps(_ connection: PostgresConnection, _ id: Int64, now: Date, logger: Logger) async throws {
        try await connection.execute(
            "UPDATE step SET duration = greatest(0, \(now.storeValue) - started_at) WHERE integration_id = \(id) AND duration IS NULL", logger: logger)
    }

    public func setCommit(_ claim: Claim, commit: String) async throws(StoreError) {
        try await write("recording the commit") { [logger] connection in
            try await Self.checkClaim(connection, claim, logger: logger)
            try await connection.execute("UPDATE integration SET commit_sha = \(commit) WHERE id = \(claim.id)", logger: logger)
        }
    }

    public func requestCancel(_ id: Int64, reason: String) async throws(StoreError) {
        try await write("asking an integration to stop") { [logger] connection in
            try await connection.execute(
                "UPDATE integration SET cancel_requested = \(reason) WHERE id = \(id) AND step <> 'completed' AND cancel_requested IS NULL",
                logger: logger)
        }
    }

    public func stopRequests(for claims: [Claim]) async throws(StoreError) -> [CancelRequest] {
        guard !claims.isEmpty else { return [] }
        let rows = try await read("reading cancel requests") { [logger] connection in
            try await connection.rows(
                "SELECT id, step, claim_token, reason, cancel_requested FROM integration WHERE id = ANY(\(claims.map(\.id)))", logger: logger
            ).map { row in
                (
                    id: try row("id", as: Int64.self), step: IntegrationStep(rawValue: try row("step")), token: try row("claim_token", as: String?.self),
                    reason: try row("reason", as: String?.self), cancel: try row("cancel_requested", as: String?.self)
                )
            }
        }
        return claims.compactMap { claim in
            let row = rows.first { $0.id == claim.id }
            return StoreRules.stopRequest(for: claim, step: row?.step, token: row?.token, reason: row?.reason, cancelRequested: row?.cancel)
        }
    }
}
