import Foundation
import GRDB
import KilnCore

extension SQLiteStore {
    public func syncBots(_ bots: [BotState], now: Date) async throws(StoreError) {
        try await write("recording the loaded bots") { db in
            try db.execute(sql: "UPDATE bot SET loaded = 0")
            for bot in bots {
                try db.cachedStatement(
                    sql: """
                        INSERT INTO bot (name, file, repository, branch, problems, loaded, updatedAt) VALUES (?, ?, ?, ?, ?, 1, ?)
                        ON CONFLICT (name) DO UPDATE SET file = excluded.file, repository = excluded.repository,
                            branch = excluded.branch, problems = excluded.problems, loaded = 1, updatedAt = excluded.updatedAt
                        """
                ).execute(arguments: [bot.name, bot.file, bot.repository, bot.branch, JSON.encode(bot.problems), now.storeValue])
            }
        }
    }

    public func enqueue(_ request: QueueRequest, now: Date) async throws(StoreError) -> QueueOutcome {
        try await write("queueing an integration of '\(request.bot)'") { db in try Self.enqueue(db, request, now: now) }
    }

    /// Queues, or coalesces, within the caller's transaction.
    static func enqueue(_ db: Database, _ request: QueueRequest, now: Date) throws -> QueueOutcome {
        try db.cachedStatement(sql: "INSERT INTO bot (name, branch, updatedAt) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING").execute(
            arguments: [request.bot, request.branch, now.storeValue])
        let lane = request.pullRequest?.number
        var superseded: [Int64] = []
        if request.cancelSuperseded, let commit = request.commit {
            superseded = try Int64.fetchAll(
                try db.cachedStatement(
                    sql: """
                        UPDATE integration SET cancelRequested = ?
                        WHERE bot = ? AND step NOT IN ('pending', 'completed') AND step != 'completed' AND commitSha IS NOT NULL AND commitSha != ?
                            AND cancelRequested IS NULL AND pullNumber IS ?
                        RETURNING id
                        """), arguments: [StoreRules.supersededReason(commit), request.bot, commit, lane])
        }
        if let pullRequest = request.pullRequest { try record(db, pullRequest, bot: request.bot, open: true, now: now) }
        if let queued = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT * FROM integration WHERE bot = ? AND step = 'pending' AND step != 'completed' AND pullNumber IS ?"),
            arguments: [request.bot, lane])
        {
            var integration = Integration(row: queued)
            if let commit = request.commit, commit != integration.commit {
                try db.cachedStatement(sql: "UPDATE integration SET commitSha = ? WHERE id = ?").execute(arguments: [commit, integration.id])
                integration.commit = commit
            }
            if let pullRequest = request.pullRequest, pullRequest != integration.pullRequest {
                try db.cachedStatement(sql: "UPDATE integration SET \(pullColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?")
                    .execute(arguments: pullArguments(pullRequest) + [integration.id])
                integration.pullRequest = pullRequest
            }
            return QueueOutcome(integration: integration, coalesced: true, superseded: superseded)
        }
        if let latest = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT * FROM integration WHERE bot = ? AND step != 'pending' AND pullNumber IS ? ORDER BY number DESC LIMIT 1"),
            arguments: [request.bot, lane]),
            StoreRules.reaches(request, latest: Integration(row: latest), cancelRequested: (latest["cancelRequested"] as String?) != nil)
        {
            return QueueOutcome(integration: Integration(row: latest), coalesced: true, superseded: superseded)
        }
        guard
            let number = try Int.fetchOne(
                try db.cachedStatement(sql: "UPDATE bot SET nextNumber = nextNumber + 1 WHERE name = ? RETURNING nextNumber - 1"),
                arguments: [request.bot])
        else { throw StoreError.notFound(what: "bot '\(request.bot)'") }
        guard
            let row = try Row.fetchOne(
                try db.cachedStatement(
                    sql: """
                        INSERT INTO integration (bot, number, cause, commitSha, branch, step, queuedAt, \(pullColumns.joined(separator: ", ")))
                        VALUES (?, ?, ?, ?, ?, 'pending', ?, \(Array(repeating: "?", count: pullColumns.count).joined(separator: ", ")))
                        RETURNING *
                        """),
                arguments: [request.bot, number, request.cause.rawValue, request.commit, request.branch, now.storeValue] + pullArguments(request.pullRequest))
        else { throw StoreError.query(what: "queueing", reason: "no row returned") }
        return QueueOutcome(integration: Integration(row: row), coalesced: false, superseded: superseded)
    }

    /// The integration columns that hold its pull request, in `pullArguments`' order.
    static let pullColumns = ["pullNumber", "pullTitle", "pullAuthor", "pullUrl", "pullHead", "pullBase", "pullRef", "pullFork"]

    static func pullArguments(_ pullRequest: PullRequest?) -> StatementArguments {
        guard let pullRequest else { return [nil, nil, nil, nil, nil, nil, nil, false] }
        return [
            pullRequest.number, pullRequest.title, pullRequest.author, pullRequest.url, pullRequest.head, pullRequest.base, pullRequest.ref,
            pullRequest.fork,
        ]
    }

    /// Records a pull request as the forge last described it, open or closed.
    static func record(_ db: Database, _ pullRequest: PullRequest, bot: String, open: Bool, now: Date) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO pullRequest (bot, number, title, author, url, head, base, ref, fork, open, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (bot, number) DO UPDATE SET title = excluded.title, author = excluded.author, url = excluded.url,
                    head = excluded.head, base = excluded.base, ref = excluded.ref, fork = excluded.fork, open = excluded.open,
                    updatedAt = excluded.updatedAt
                """
        ).execute(arguments: [
            bot, pullRequest.number, pullRequest.title, pullRequest.author, pullRequest.url, pullRequest.head, pullRequest.base, pullRequest.ref,
            pullRequest.fork, open, now.storeValue,
        ])
    }

    /// Closes a pull request for a bot: its queued integration ends as canceled, its running one is
    /// asked to stop. Returns the integrations it reached.
    static func close(_ db: Database, _ closing: PullRequestClosing, now: Date) throws -> [Integration] {
        try db.cachedStatement(sql: "UPDATE pullRequest SET open = 0, updatedAt = ? WHERE bot = ? AND number = ?").execute(arguments: [
            now.storeValue, closing.bot, closing.number,
        ])
        let canceled = try Row.fetchAll(
            try db.cachedStatement(
                sql: """
                    UPDATE integration SET step = 'completed', result = 'canceled', reason = ?, endedAt = ?
                    WHERE bot = ? AND step = 'pending' AND step != 'completed' AND pullNumber = ?
                    RETURNING *
                    """), arguments: [closing.reason, now.storeValue, closing.bot, closing.number]
        ).map(Integration.init(row:))
        let stopping = try Row.fetchAll(
            try db.cachedStatement(
                sql: """
                    UPDATE integration SET cancelRequested = ?
                    WHERE bot = ? AND step NOT IN ('pending', 'completed') AND step != 'completed' AND pullNumber = ? AND cancelRequested IS NULL
                    RETURNING *
                    """), arguments: [closing.reason, closing.bot, closing.number]
        ).map(Integration.init(row:))
        return canceled + stopping
    }

    public func claimNext(owner: String, now: Date) async throws(StoreError) -> Claim? {
        let token = StoreRules.newToken()
        return try await write("claiming a queued integration") { db in
            guard
                let row = try Row.fetchOne(
                    try db.cachedStatement(
                        sql: """
                            UPDATE integration SET step = 'checkout', startedAt = ?, owner = ?, host = ?, claimToken = ?
                            WHERE id = (
                                SELECT queued.id FROM integration AS queued
                                WHERE queued.step = 'pending' AND queued.step != 'completed' AND NOT EXISTS (
                                    SELECT 1 FROM integration AS running
                                    WHERE running.bot = queued.bot AND running.step NOT IN ('pending', 'completed') AND running.step != 'completed' AND step != 'completed')
                                ORDER BY queued.queuedAt, queued.id LIMIT 1)
                            RETURNING *
                            """), arguments: [now.storeValue, owner, ProcessOwner.host(of: owner), token])
            else { return nil }
            let integration = Integration(row: row)
            try db.cachedStatement(sql: "INSERT INTO step (integrationId, name, startedAt) VALUES (?, 'checkout', ?)").execute(arguments: [
                integration.id, now.storeValue,
            ])
            return Claim(integration: integration, token: token)
        }
    }

    public func claim(_ id: Int64, owner: String, now: Date) async throws(StoreError) -> Claim? {
        let token = StoreRules.newToken()
        return try await write("claiming integration \(id)") { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        UPDATE integration SET step = 'checkout', startedAt = ?, owner = ?, host = ?, claimToken = ?
                        WHERE id = ? AND step = 'pending' AND step != 'completed' AND NOT EXISTS (
                            SELECT 1 FROM integration AS running
                            WHERE running.bot = integration.bot AND running.step NOT IN ('pending', 'completed')
                                AND running.step != 'completed')
                        RETURNING *
                        """, arguments: [now.storeValue, owner, ProcessOwner.host(of: owner), token, id])
            else { return nil }
            try db.execute(sql: "INSERT INTO step (integrationId, name, startedAt) VALUES (?, 'checkout', ?)", arguments: [id, now.storeValue])
            return Claim(integration: Integration(row: row), token: token)
        }
    }

    /// Throws `claimLost` unless `claim` still holds its integration: not completed, same token.
    static func checkClaim(_ db: Database, _ claim: Claim) throws {
        let row = try Row.fetchOne(
            try db.cachedStatement(sql: "SELECT step, claimToken, reason FROM integration WHERE id = ?"), arguments: [claim.id])
        if let refusal = StoreRules.refusal(
            of: claim, step: (row?["step"] as String?).flatMap(IntegrationStep.init(rawValue:)), token: row?["claimToken"], reason: row?["reason"])
        {
            throw refusal
        }
    }

    public func advance(_ claim: Claim, to step: IntegrationStep, now: Date) async throws(StoreError) {
        try await write("recording step \(step.rawValue)") { db in
            try Self.checkClaim(db, claim)
            try Self.closeSteps(db, claim.id, now: now)
            try db.cachedStatement(sql: "UPDATE integration SET step = ? WHERE id = ?").execute(arguments: [step.rawValue, claim.id])
            if step != .completed {
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO step (integrationId, name, startedAt) VALUES (?, ?, ?)").execute(arguments: [
                    claim.id, step.rawValue, now.storeValue,
                ])
            }
        }
    }

    static func closeSteps(_ db: Database, _ id: Int64, now: Date) throws {
        try db.cachedStatement(sql: "UPDATE step SET duration = max(0, ? - startedAt) WHERE integrationId = ? AND duration IS NULL").execute(
            arguments: [now.storeValue, id])
    }

    public func setCommit(_ claim: Claim, commit: String) async throws(StoreError) {
        try await write("recording the commit") { db in
            try Self.checkClaim(db, claim)
            try db.cachedStatement(sql: "UPDATE integration SET commitSha = ? WHERE id = ?").execute(arguments: [commit, claim.id])
        }
    }

    public func requestCancel(_ id: Int64, reason: String) async throws(StoreError) {
        try await write("asking an integration to stop") { db in
            try db.cachedStatement(sql: "UPDATE integration SET cancelRequested = ? WHERE id = ? AND step != 'completed' AND cancelRequested IS NULL")
                .execute(arguments: [reason, id])
        }
    }

    public func stopRequests(for claims: [Claim]) async throws(StoreError) -> [CancelRequest] {
        guard !claims.isEmpty else { return [] }
        return try await read("reading cancel requests") { db in
            try claims.compactMap { claim in
                let row = try Row.fetchOne(
                    try db.cachedStatement(sql: "SELECT step, claimToken, reason, cancelRequested FROM integration WHERE id = ?"),
                    arguments: [claim.id])
                return StoreRules.stopRequest(
                    for: claim, step: (row?["step"] as String?).flatMap(IntegrationStep.init(rawValue:)), token: row?["claimToken"],
                    reason: row?["reason"], cancelRequested: row?["cancelRequested"])
            }
        }
    }
}
