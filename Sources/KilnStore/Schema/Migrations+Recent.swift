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

/// The migrations from v18 on; `Migrations.shared` lists them in order.
extension Migrations {
    /// v18: which check of the `analyze` step found an analyzer warning (`AnalyzerCheck`; the
    /// column is not `check`, a reserved word in SQL).
    static let analyzerChecks = Migration(name: "v18: analyzer checks") { _ in
        ["ALTER TABLE issue ADD COLUMN analyzer_check text"]
    }

    /// v19: pull request reviews (`forge.review`): their outbox, and the comments each pull
    /// request has from Kiln, by finding, with the forge's ids (to resolve or edit them later).
    static let reviews = Migration(name: "v19: reviews") { dialect in
        let (key, integer, real) =
            switch dialect {
            case .sqlite: ("INTEGER PRIMARY KEY", "INTEGER", "REAL")
            case .postgres: ("bigserial PRIMARY KEY", "bigint", "double precision")
            }
        return [
            """
            CREATE TABLE forge_review (
                id \(key),
                created_at \(real) NOT NULL,
                bot text NOT NULL,
                pull_request \(integer) NOT NULL,
                integration_id \(integer) REFERENCES integration(id) ON DELETE SET NULL,
                draft text NOT NULL,
                progress text,
                delivery text NOT NULL DEFAULT 'queued',
                attempts \(integer) NOT NULL DEFAULT 0,
                next_attempt_at \(real) NOT NULL,
                last_error text,
                response_code \(integer),
                sent_at \(real)
            )
            """,
            "CREATE INDEX forge_review_due ON forge_review (next_attempt_at) WHERE delivery = 'queued'",
            "CREATE INDEX forge_review_pull ON forge_review (bot, pull_request, id)",
            """
            CREATE TABLE review_comment (
                bot text NOT NULL,
                pull_request \(integer) NOT NULL,
                fingerprint text NOT NULL,
                forge_id text NOT NULL,
                discussion text,
                body text NOT NULL,
                resolved_in text,
                created_at \(real) NOT NULL,
                PRIMARY KEY (bot, pull_request, fingerprint)
            )
            """,
        ]
    }
}

extension Migrations {
    /// v20: warm workspaces. Where each integration's workspace came from (`WorkspaceOrigin`, as
    /// JSON); which host holds a snapshot of which bot and cell (`WorkspaceSnapshot`) and at
    /// which address it serves them; the secret hosts show each other when they fetch one.
    static let workspaceSnapshots = Migration(name: "v20: workspace snapshots") { dialect in
        let (integer, real) = numberTypes(dialect)
        return [
            "ALTER TABLE integration ADD COLUMN workspace text",
            "ALTER TABLE host ADD COLUMN address text",
            """
            CREATE TABLE workspace_snapshot (
                bot text NOT NULL,
                cell text NOT NULL,
                host text NOT NULL,
                number \(integer) NOT NULL,
                commit_sha text NOT NULL,
                swift_version text NOT NULL,
                seen_as text NOT NULL,
                bytes \(integer) NOT NULL,
                sha256 text NOT NULL,
                created_at \(real) NOT NULL,
                PRIMARY KEY (bot, cell, host)
            )
            """,
            "CREATE TABLE cluster_secret (name text PRIMARY KEY, value text NOT NULL)",
        ]
    }
}

extension Migrations {
    /// v21: the audit trail (`AuditEvent`): sign-ins, tokens made and revoked, queue and cancel.
    static let auditTrail = Migration(name: "v21: audit trail") { dialect in
        let (key, integer, real) =
            switch dialect {
            case .sqlite: ("INTEGER PRIMARY KEY", "INTEGER", "REAL")
            case .postgres: ("bigserial PRIMARY KEY", "bigint", "double precision")
            }
        return [
            """
            CREATE TABLE audit_event (
                id \(key),
                at \(real) NOT NULL,
                action text NOT NULL,
                token text,
                address text,
                bot text,
                number \(integer),
                detail text
            )
            """,
            "CREATE INDEX audit_event_at ON audit_event (at)",
        ]
    }
}

extension Migrations {
    /// v22: reasons as data (`IntegrationReason`). An integration's `reason` and
    /// `cancel_requested` hold a code and its values as JSON; the sentences older versions wrote
    /// become `recorded` reasons that keep their text.
    static let reasonsAsData = Migration(name: "v22: reasons as data") { dialect in
        let object =
            switch dialect {
            case .sqlite: { (column: String) in "json_object('code', 'recorded', 'text', \(column))" }
            case .postgres: { (column: String) in "json_build_object('code', 'recorded', 'text', \(column))::text" }
            }
        return ["reason", "cancel_requested"].map { column in
            "UPDATE integration SET \(column) = \(object(column)) WHERE \(column) IS NOT NULL AND \(column) NOT LIKE '{%'"
        }
    }
}

extension Migrations {
    /// v23: one outbox code for mail, commit statuses and reviews (`OutboxTable`): mail keeps
    /// the SMTP server's reply code beside its words, as the forges' deliveries keep theirs.
    static let mailResponseCode = Migration(name: "v23: mail response code") { dialect in
        ["ALTER TABLE outbox ADD COLUMN response_code \(integerColumn(dialect))"]
    }

    /// The column types of a whole number and of a real one (seconds, times) in `dialect`.
    static func numberTypes(_ dialect: SQLDialect) -> (integer: String, real: String) {
        switch dialect {
        case .sqlite: ("INTEGER", "REAL")
        case .postgres: ("bigint", "double precision")
        }
    }

    /// An integer column's type, as a column added later has it on each engine.
    static func integerColumn(_ dialect: SQLDialect) -> String { numberTypes(dialect).integer }
}

extension Migrations {
    /// v24: why a bisection failed as data (`Bisection.Failure`, JSON); the sentences older
    /// versions wrote become `recorded` failures that keep their text.
    static let bisectionFailures = Migration(name: "v24: bisection failures as data") { dialect in
        let object =
            switch dialect {
            case .sqlite: "json_object('recorded', json_object('_0', reason))"
            case .postgres: "json_build_object('recorded', json_build_object('_0', reason))::text"
            }
        return ["UPDATE bisection SET reason = \(object) WHERE reason IS NOT NULL AND reason NOT LIKE '{%'"]
    }
}

extension Migrations {
    /// v25: re-runs (`Rerun`): the integration a re-run runs again, and whether all of it or only
    /// what failed; and an integration's commit's subject and author, for the lists that show it.
    static let reruns = Migration(name: "v25: reruns") { dialect in
        [
            "ALTER TABLE integration ADD COLUMN rerun_of \(integerColumn(dialect))", "ALTER TABLE integration ADD COLUMN rerun_only text",
            "ALTER TABLE integration ADD COLUMN commit_subject text", "ALTER TABLE integration ADD COLUMN commit_author text",
        ]
    }
}

extension Migrations {
    /// v26: one outbox (`Outboxes`): mail, commit statuses and reviews become rows of `delivery`,
    /// each with its kind, its lane (a context's statuses for a commit, a pull request's reviews)
    /// and its fields as JSON (a mail's message as it is, in `body`), so that an output added
    /// later needs no table of its own. What the three tables held is moved over, states and all.
    static let oneOutbox = Migration(name: "v26: one outbox") { dialect in
        let (key, integer, real, blob) =
            switch dialect {
            case .sqlite: ("INTEGER PRIMARY KEY", "INTEGER", "REAL", "BLOB")
            case .postgres: ("bigserial PRIMARY KEY", "bigint", "double precision", "bytea")
            }
        let (object, recipients) =
            switch dialect {
            case .sqlite: ({ (pairs: String) in "json_object(\(pairs))" }, "json(recipients)")
            case .postgres: ({ (pairs: String) in "json_build_object(\(pairs))::text" }, "recipients::json")
            }
        let status = object(
            """
            'apiURL', api_url, 'bot', bot, 'context', context, 'description', description, 'integrationID', integration_id, 'kind', kind,
            'project', project, 'sha', sha, 'state', state, 'targetURL', target_url, 'tokenFile', token_file
            """)
        let moved = "state, attempts, next_attempt_at, last_error, response_code, created_at, sent_at"
        return [
            """
            CREATE TABLE delivery (
                id \(key),
                kind text NOT NULL,
                lane text,
                dedupe_key text UNIQUE,
                bot text,
                integration_id \(integer) REFERENCES integration(id) ON DELETE SET NULL,
                payload text NOT NULL,
                body \(blob),
                state text NOT NULL DEFAULT 'queued',
                attempts \(integer) NOT NULL DEFAULT 0,
                next_attempt_at \(real) NOT NULL,
                last_error text,
                response_code \(integer),
                progress text,
                created_at \(real) NOT NULL,
                sent_at \(real)
            )
            """,
            "CREATE INDEX delivery_due ON delivery (kind, next_attempt_at) WHERE state = 'queued'",
            "CREATE INDEX delivery_lane ON delivery (kind, lane, id)",
            "CREATE INDEX delivery_bot ON delivery (kind, state, bot, id)",
            """
            INSERT INTO delivery (kind, dedupe_key, bot, integration_id, payload, body, \(moved))
            SELECT 'mail', dedupe_key, bot, integration_id, \(object("'recipients', \(recipients), 'subject', subject")), message,
                CASE state WHEN 'failed' THEN 'given-up' ELSE state END, attempts, next_attempt_at, last_error, response_code, created_at, sent_at
            FROM outbox ORDER BY id
            """,
            """
            INSERT INTO delivery (kind, lane, bot, integration_id, payload, \(moved))
            SELECT 'status', project || ' ' || sha || ' ' || context, bot, integration_id, \(status),
                CASE delivery WHEN 'refused' THEN 'given-up' ELSE delivery END, attempts, next_attempt_at, last_error, response_code, created_at, sent_at
            FROM forge_status ORDER BY id
            """,
            """
            INSERT INTO delivery (kind, lane, bot, integration_id, payload, progress, \(moved))
            SELECT 'review', bot || ' ' || CAST(pull_request AS text), bot, integration_id, draft, progress,
                CASE delivery WHEN 'refused' THEN 'given-up' ELSE delivery END, attempts, next_attempt_at, last_error, response_code, created_at, sent_at
            FROM forge_review ORDER BY id
            """,
            "DROP TABLE outbox", "DROP TABLE forge_status", "DROP TABLE forge_review",
        ]
    }
}

extension Migrations {
    /// v27: a running integration's tests so far (`TestProgress`), for the status and the page
    /// that say "failing" before the suite ends.
    static let testProgress = Migration(name: "v27: test progress") { dialect in
        [
            "ALTER TABLE integration ADD COLUMN progress_tests \(integerColumn(dialect))",
            "ALTER TABLE integration ADD COLUMN progress_failed \(integerColumn(dialect))",
        ]
    }

    /// v28: the parts a sharded testing step ran in (`ShardRun`, as JSON), for the JSON's `shards`.
    static let shards = Migration(name: "v28: test shards") { _ in ["ALTER TABLE integration ADD COLUMN shards text"] }

    /// v29: a fork's pull request waiting for a member's approval: a queued integration marked
    /// `awaiting_approval` (1), which no claim takes, and who approved it.
    static let approval = Migration(name: "v29: approval") { dialect in
        [
            "ALTER TABLE integration ADD COLUMN awaiting_approval \(integerColumn(dialect))",
            "ALTER TABLE integration ADD COLUMN approved_by text",
        ]
    }

    /// v30: how much of its change an integration's tests ran (`PatchCoverage`, as JSON).
    static let patchCoverage = Migration(name: "v30: patch coverage") { _ in ["ALTER TABLE integration ADD COLUMN patch_coverage text"] }

    /// v31: the parts of sharded testing steps offered to other hosts (`ShardJob`, as JSON), who
    /// claimed each, how often, and what it found (`ShardOutcome`, as JSON).
    static let shardQueue = Migration(name: "v31: test shard queue") { dialect in
        let (integer, real) = numberTypes(dialect)
        return [
            """
            CREATE TABLE test_shard (
                integration_id \(integer) NOT NULL,
                part \(integer) NOT NULL,
                bot text NOT NULL,
                job text NOT NULL,
                claimed_by text,
                claimed_at \(real),
                attempts \(integer) NOT NULL,
                outcome text,
                offered_at \(real) NOT NULL,
                PRIMARY KEY (integration_id, part)
            )
            """
        ]
    }
}
