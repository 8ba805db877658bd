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

/// The schema's migrations from the day both engines share one schema on, each written once for
/// both (`SQLDialect` says what differs). Every engine applies its own history first
/// (`History`: what each shipped before), then these, in order.
/// A shipped migration is never edited: change the schema with a new one.
enum Migrations {
    struct Migration: Sendable {
        let name: String
        let statements: @Sendable (SQLDialect) -> [String]
    }

    static let shared: [Migration] = [
        oneSchema, issueKindsAsData, testHistory, quarantine, bisection, measurements, assets, workspaceSlots, queueOrder, cells, dependencies,
        access, retentionIndex, analyzerChecks, reviews, workspaceSnapshots, auditTrail, reasonsAsData, mailResponseCode, bisectionFailures, reruns,
        oneOutbox, testProgress, shards, approval, patchCoverage, shardQueue,
    ]

    /// An engine's history, then the shared migrations: all of them, unless a test stops before
    /// `stoppingBefore` to make a store as an older version left it.
    static func applying(_ history: [Migration]) -> [Migration] {
        let all = history + shared
        guard let stop = stoppingBefore, let index = all.firstIndex(where: { $0.name == stop }) else { return all }
        return Array(all[..<index])
    }

    /// Tests of a migration's move of data only: the migration a store opened in this task stops before.
    @TaskLocal static var stoppingBefore: String?

    /// Tests of the schema a new SQLite file starts from only: a new file opened in this task
    /// replays every migration instead (`History.sqliteSchema`).
    @TaskLocal static var replaying = false

    /// v5: the same table and column names on both engines (PostgreSQL's snake_case), and times
    /// as seconds since 1970 everywhere, hosts' and leases' included.
    static let oneSchema = Migration(name: "v5: one schema") { dialect in
        switch dialect {
        case .sqlite:
            renames.flatMap { table, columns in
                columns.map { "ALTER TABLE \(table) RENAME COLUMN \($0) TO \(snakeCase($0))" }
                    + (table == snakeCase(table) ? [] : ["ALTER TABLE \(table) RENAME TO \(snakeCase(table))"])
            }
                + sqliteIndexes.map { "DROP INDEX \($0.old)" } + sqliteIndexes.map(\.create)
        case .postgres:
            [
                "ALTER TABLE host ALTER COLUMN started_at TYPE double precision USING extract(epoch FROM started_at)",
                "ALTER TABLE host ALTER COLUMN last_heard TYPE double precision USING extract(epoch FROM last_heard)",
                "ALTER TABLE lease ALTER COLUMN expires_at TYPE double precision USING extract(epoch FROM expires_at)",
            ]
        }
    }

    /// v6: a summary's issue counts and their changes by kind, as JSON (`IssueCounts`), instead of
    /// two columns per kind: a new kind of issue needs no migration.
    static let issueKindsAsData = Migration(name: "v6: issue counts by kind") { _ in
        [
            "ALTER TABLE integration ADD COLUMN issue_counts text",
            "ALTER TABLE integration ADD COLUMN issue_changes text",
            """
            UPDATE integration SET issue_counts = '{"error":' || errors || ',"test-failure":' || test_failures || ',"warning":' || warnings || '}'
            WHERE errors IS NOT NULL
            """,
            """
            UPDATE integration
            SET issue_changes = '{"error":' || errors_change || ',"test-failure":' || test_failures_change || ',"warning":' || warnings_change || '}'
            WHERE errors_change IS NOT NULL
            """,
        ]
            + ["errors", "warnings", "test_failures", "errors_change", "warnings_change", "test_failures_change"].map {
                "ALTER TABLE integration DROP COLUMN \($0)"
            }
    }

    /// v7: a test's results across integrations are found by its name (the test pages).
    static let testHistory = Migration(name: "v7: test history") { _ in
        ["CREATE INDEX test_case_name ON test_case (suite, name)"]
    }

    /// v8: a test's result says whether it ran under quarantine (`test.quarantine`).
    static let quarantine = Migration(name: "v8: quarantined tests") { dialect in
        switch dialect {
        case .sqlite: ["ALTER TABLE test_case ADD COLUMN quarantined INTEGER NOT NULL DEFAULT 0"]
        case .postgres: ["ALTER TABLE test_case ADD COLUMN quarantined boolean NOT NULL DEFAULT false"]
        }
    }

    /// v10: what a test's `measure {}` measured (a JSON list of seconds), for its baseline.
    static let measurements = Migration(name: "v10: test measurements") { _ in
        ["ALTER TABLE test_case ADD COLUMN measurement text"]
    }

    /// v11: the files an integration keeps for download (its archive): their names, sizes and
    /// SHA-256. Their bytes are files in the data directory on SQLite, and `asset_chunk` rows on
    /// PostgreSQL, so that every host serves every asset.
    static let assets = Migration(name: "v11: assets") { dialect in
        let (integer, blob) =
            switch dialect {
            case .sqlite: ("INTEGER", "BLOB")
            case .postgres: ("bigint", "bytea")
            }
        let table = """
            CREATE TABLE asset (
                integration_id \(integer) NOT NULL REFERENCES integration(id),
                name text NOT NULL,
                size \(integer) NOT NULL,
                sha256 text NOT NULL,
                PRIMARY KEY (integration_id, name)
            )
            """
        guard dialect == .postgres else { return [table] }
        return [
            table,
            """
            CREATE TABLE asset_chunk (
                integration_id \(integer) NOT NULL,
                name text NOT NULL,
                start_offset \(integer) NOT NULL,
                data \(blob) NOT NULL,
                PRIMARY KEY (integration_id, name, start_offset)
            )
            """,
        ]
    }

    /// v12: which of its bot's workspaces a bisect integration runs in, so that a bisection can
    /// integrate several commits at once (`Integration.workspaceSlot`).
    static let workspaceSlots = Migration(name: "v12: bisect workspaces") { dialect in
        ["ALTER TABLE integration ADD COLUMN workspace_slot \(dialect == .sqlite ? "INTEGER" : "bigint")"]
    }

    /// v13: the queue in the order claims take it. A claim wants the first queued integration
    /// that may start, bisect integrations last; without this index it judged every queued one
    /// and sorted them (5.7 ms a claim with 432 queued on PostgreSQL), with it it reads them in
    /// order and stops at the first that may start (0.2 ms).
    static let queueOrder = Migration(name: "v13: queue order") { _ in
        ["CREATE INDEX integration_queue ON integration ((bisection_id IS NOT NULL), queued_at, id) WHERE step = 'pending'"]
    }

    /// v14: a matrix's cells. A cell is an integration row of its own (claimed, logged, stopped
    /// and recovered like any), numbered below zero so that its bot's integrations keep their
    /// numbers, pointing at the integration it is a cell of (`cell_of`, that one's number). Its
    /// tests and issues move to that integration when it completes: `test_case.cell` and
    /// `issue.cells` say where each was found. Hosts say which toolchains they offer. Cells come
    /// first in the queue: their integration already holds an executor, waiting for them.
    static let cells = Migration(name: "v14: matrix cells") { dialect in
        let integer = dialect == .sqlite ? "INTEGER" : "bigint"
        return [
            "ALTER TABLE integration ADD COLUMN cell_of \(integer)",
            "ALTER TABLE integration ADD COLUMN cell text",
            "ALTER TABLE integration ADD COLUMN toolchain text",
            "ALTER TABLE integration ADD COLUMN swift_version text",
            "CREATE INDEX integration_cells ON integration (bot, cell_of) WHERE cell_of IS NOT NULL",
            "DROP INDEX integration_queue",
            "CREATE INDEX integration_queue ON integration ((cell_of IS NULL), (bisection_id IS NOT NULL), queued_at, id) WHERE step = 'pending'",
            "ALTER TABLE test_case ADD COLUMN cell text",
            "ALTER TABLE issue ADD COLUMN cells text",
            "ALTER TABLE host ADD COLUMN toolchains text",
        ]
    }

    /// v15: the dependencies an integration's package pinned and how Kiln's mirrors had them
    /// (`DependencyPin`s, as JSON: read with the integration, never queried).
    static let dependencies = Migration(name: "v15: dependencies") { _ in
        ["ALTER TABLE integration ADD COLUMN dependencies text"]
    }

    /// v16: who may see and do what. A bot's `visibility: private`; access tokens, kept only as
    /// the SHA-256 of the token (`kiln token`), with the private bots each may see (JSON; empty
    /// for all) and when it was last used.
    static let access = Migration(name: "v16: access") { dialect in
        let (boolean, real) = dialect == .sqlite ? ("INTEGER NOT NULL DEFAULT 0", "REAL") : ("boolean NOT NULL DEFAULT false", "double precision")
        return [
            "ALTER TABLE bot ADD COLUMN private \(boolean)",
            """
            CREATE TABLE access_token (
                name text PRIMARY KEY,
                role text NOT NULL,
                bots text NOT NULL,
                hash text NOT NULL UNIQUE,
                created_at \(real) NOT NULL,
                last_used_at \(real)
            )
            """,
        ]
    }

    /// v17: the integrations retention may still expire, by bot and number: its pass reads only
    /// those, not every summary it already expired (a full read of 100,000 rows took 96 ms at
    /// each start and after each integration).
    static let retentionIndex = Migration(name: "v17: retention index") { _ in
        ["CREATE INDEX integration_unexpired ON integration (bot, number) WHERE NOT expired"]
    }

    /// v9: bisections, and the integrations that are their steps (never the branch's history).
    static let bisection = Migration(name: "v9: bisection") { dialect in
        let (key, integer, real) =
            switch dialect {
            case .sqlite: ("INTEGER PRIMARY KEY", "INTEGER", "REAL")
            case .postgres: ("bigserial PRIMARY KEY", "bigint", "double precision")
            }
        return [
            """
            CREATE TABLE bisection (
                id \(key),
                bot text NOT NULL,
                integration_id \(integer) NOT NULL REFERENCES integration(id),
                commits text NOT NULL,
                fingerprints text NOT NULL,
                verdicts text NOT NULL DEFAULT '{}',
                integrations text NOT NULL DEFAULT '[]',
                max_integrations \(integer) NOT NULL,
                state text NOT NULL,
                culprit text,
                reason text,
                created_at \(real) NOT NULL,
                ended_at \(real)
            )
            """,
            "CREATE INDEX bisection_integration ON bisection (integration_id)",
            "ALTER TABLE integration ADD COLUMN bisection_id \(integer)",
        ]
    }

    /// SQLite's camelCase tables and columns of v1–v4.
    private static let renames: [(String, [String])] = [
        ("bot", ["nextNumber", "updatedAt"]),
        (
            "integration",
            [
                "commitSha", "queuedAt", "startedAt", "endedAt", "cancelRequested", "testFailures", "errorsChange", "warningsChange",
                "testsChange", "testFailuresChange", "coverageChange", "notifiedAt", "claimToken", "requeueOf", "pullNumber", "pullTitle",
                "pullAuthor", "pullUrl", "pullHead", "pullBase", "pullRef", "pullFork", "statusStage", "statusCommit",
            ]
        ),
        ("step", ["integrationId", "startedAt"]),
        ("issue", ["integrationId", "introducedBy"]),
        ("testCase", ["integrationId"]),
        ("integrationCommit", ["integrationId"]),
        ("triggerRun", ["integrationId", "exitStatus"]),
        ("outbox", ["createdAt", "integrationId", "dedupeKey", "nextAttemptAt", "lastError", "sentAt"]),
        ("webhookDelivery", ["receivedAt", "commitSha", "statusCode"]),
        ("host", ["botsDigest", "startedAt", "lastHeard"]),
        ("lease", ["expiresAt"]),
        ("pullRequest", ["updatedAt"]),
        ("forgeStatus", ["createdAt", "integrationId", "apiUrl", "tokenFile", "targetUrl", "nextAttemptAt", "lastError", "responseCode", "sentAt"]),
    ]

    /// SQLite's indexes under PostgreSQL's names (SQLite has no RENAME INDEX).
    private static let sqliteIndexes: [(old: String, create: String)] = [
        ("integrationActive", "CREATE INDEX integration_active ON integration (bot, step) WHERE step <> 'completed'"),
        ("integrationToNotify", "CREATE INDEX integration_to_notify ON integration (id) WHERE notified_at IS NULL"),
        ("integrationPull", "CREATE INDEX integration_pull ON integration (bot, pull_number, number) WHERE pull_number IS NOT NULL"),
        ("integrationRecent", "CREATE INDEX integration_recent ON integration (bot, queued_at)"),
        ("issueIntegration", "CREATE INDEX issue_integration ON issue (integration_id)"),
        ("testCaseIntegration", "CREATE INDEX test_case_integration ON test_case (integration_id)"),
        ("triggerRunIntegration", "CREATE INDEX trigger_run_integration ON trigger_run (integration_id)"),
        ("outboxDue", "CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE state = 'queued'"),
        ("forgeStatusDue", "CREATE INDEX forge_status_due ON forge_status (next_attempt_at) WHERE delivery = 'queued'"),
        ("forgeStatusKey", "CREATE INDEX forge_status_key ON forge_status (sha, context, id)"),
        ("forgeStatusBot", "CREATE INDEX forge_status_bot ON forge_status (delivery, bot, id)"),
    ]

    /// `integrationCommit` → `integration_commit`.
    static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
