--===----------------------------------------------------------------------===--
--
-- This source file is part of the Kiln open source project
--
-- Copyright (c) 2026 the Kiln project authors
-- Licensed under Apache License v2.0
--
-- See LICENSE for license information
--
-- SPDX-License-Identifier: Apache-2.0
--
--===----------------------------------------------------------------------===--
-- The schema a new SQLite store starts with: what replaying sqlite-history.sql and every shared
-- migration (Migrations.swift) leaves in sqlite_master, in its order. Creating it directly takes
-- a few milliseconds where the replay took ~100 (SQLite parses the whole schema again at every
-- ALTER TABLE). SQLiteSchemaTests checks it against the replay: after a new migration, replace
-- this file with what that test prints.
-- migration: schema
CREATE TABLE bot (
    name TEXT PRIMARY KEY,
    file TEXT NOT NULL DEFAULT '',
    repository TEXT NOT NULL DEFAULT '',
    branch TEXT NOT NULL DEFAULT '',
    problems TEXT NOT NULL DEFAULT '[]',
    loaded INTEGER NOT NULL DEFAULT 1,
    next_number INTEGER NOT NULL DEFAULT 1,
    updated_at REAL NOT NULL
, private INTEGER NOT NULL DEFAULT 0);
CREATE TABLE integration (
    id INTEGER PRIMARY KEY,
    bot TEXT NOT NULL REFERENCES bot(name),
    number INTEGER NOT NULL,
    cause TEXT NOT NULL,
    commit_sha TEXT,
    branch TEXT NOT NULL,
    step TEXT NOT NULL,
    result TEXT,
    queued_at REAL NOT NULL,
    started_at REAL,
    ended_at REAL,
    owner TEXT,
    cancel_requested TEXT,
    reason TEXT,
    tests INTEGER,
    coverage REAL,
    tests_change INTEGER,
    coverage_change REAL,
    expired INTEGER NOT NULL DEFAULT 0, notified_at REAL, host TEXT, claim_token TEXT, requeue_of INTEGER, pull_number INTEGER, pull_title TEXT, pull_author TEXT, pull_url TEXT, pull_head TEXT, pull_base TEXT, pull_ref TEXT, pull_fork INTEGER NOT NULL DEFAULT 0, status_stage TEXT, status_commit TEXT, issue_counts text, issue_changes text, bisection_id INTEGER, workspace_slot INTEGER, cell_of INTEGER, cell text, toolchain text, swift_version text, dependencies text, workspace text, rerun_of INTEGER, rerun_only text, commit_subject text, commit_author text, progress_tests INTEGER, progress_failed INTEGER, shards text, awaiting_approval INTEGER, approved_by text, patch_coverage text,
    UNIQUE (bot, number)
);
CREATE TABLE step (
    integration_id INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    started_at REAL NOT NULL,
    duration REAL,
    PRIMARY KEY (integration_id, name)
);
CREATE TABLE issue (
    id INTEGER PRIMARY KEY,
    integration_id INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    message TEXT NOT NULL,
    file TEXT,
    line INTEGER,
    fingerprint TEXT NOT NULL,
    status TEXT NOT NULL,
    introduced_by TEXT NOT NULL DEFAULT '[]'
, cells text, analyzer_check text);
CREATE TABLE "test_case" (
    id INTEGER PRIMARY KEY,
    integration_id INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    suite TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    duration REAL NOT NULL,
    message TEXT,
    file TEXT,
    line INTEGER
, quarantined INTEGER NOT NULL DEFAULT 0, measurement text, cell text);
CREATE TABLE "integration_commit" (
    integration_id INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    sha TEXT NOT NULL,
    author TEXT NOT NULL,
    email TEXT NOT NULL,
    date REAL NOT NULL,
    subject TEXT NOT NULL,
    PRIMARY KEY (integration_id, position)
);
CREATE TABLE "trigger_run" (
    id INTEGER PRIMARY KEY,
    integration_id INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    phase TEXT NOT NULL,
    exit_status INTEGER NOT NULL,
    duration REAL NOT NULL
);
CREATE TABLE "webhook_delivery" (
    id INTEGER PRIMARY KEY,
    received_at REAL NOT NULL,
    forge TEXT NOT NULL,
    event TEXT NOT NULL,
    repository TEXT,
    branch TEXT,
    commit_sha TEXT,
    outcome TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    integrations TEXT NOT NULL DEFAULT '[]',
    detail TEXT
);
CREATE TABLE host (
    name TEXT PRIMARY KEY,
    version TEXT NOT NULL,
    executors INTEGER NOT NULL,
    busy INTEGER NOT NULL,
    bots_digest TEXT NOT NULL,
    lease REAL NOT NULL,
    started_at REAL NOT NULL,
    last_heard REAL NOT NULL
, toolchains text, address text);
CREATE TABLE lease (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at REAL NOT NULL
);
CREATE TABLE "pull_request" (
    bot TEXT NOT NULL,
    number INTEGER NOT NULL,
    title TEXT NOT NULL,
    author TEXT NOT NULL,
    url TEXT,
    head TEXT NOT NULL,
    base TEXT NOT NULL,
    ref TEXT NOT NULL,
    fork INTEGER NOT NULL DEFAULT 0,
    open INTEGER NOT NULL DEFAULT 1,
    updated_at REAL NOT NULL,
    PRIMARY KEY (bot, number)
);
CREATE INDEX integration_active ON integration (bot, step) WHERE step <> 'completed';
CREATE INDEX integration_to_notify ON integration (id) WHERE notified_at IS NULL;
CREATE INDEX integration_pull ON integration (bot, pull_number, number) WHERE pull_number IS NOT NULL;
CREATE INDEX integration_recent ON integration (bot, queued_at);
CREATE INDEX issue_integration ON issue (integration_id);
CREATE INDEX test_case_integration ON test_case (integration_id);
CREATE INDEX trigger_run_integration ON trigger_run (integration_id);
CREATE INDEX test_case_name ON test_case (suite, name);
CREATE TABLE bisection (
    id INTEGER PRIMARY KEY,
    bot text NOT NULL,
    integration_id INTEGER NOT NULL REFERENCES integration(id),
    commits text NOT NULL,
    fingerprints text NOT NULL,
    verdicts text NOT NULL DEFAULT '{}',
    integrations text NOT NULL DEFAULT '[]',
    max_integrations INTEGER NOT NULL,
    state text NOT NULL,
    culprit text,
    reason text,
    created_at REAL NOT NULL,
    ended_at REAL
);
CREATE INDEX bisection_integration ON bisection (integration_id);
CREATE TABLE asset (
    integration_id INTEGER NOT NULL REFERENCES integration(id),
    name text NOT NULL,
    size INTEGER NOT NULL,
    sha256 text NOT NULL,
    PRIMARY KEY (integration_id, name)
);
CREATE INDEX integration_cells ON integration (bot, cell_of) WHERE cell_of IS NOT NULL;
CREATE INDEX integration_queue ON integration ((cell_of IS NULL), (bisection_id IS NOT NULL), queued_at, id) WHERE step = 'pending';
CREATE TABLE access_token (
    name text PRIMARY KEY,
    role text NOT NULL,
    bots text NOT NULL,
    hash text NOT NULL UNIQUE,
    created_at REAL NOT NULL,
    last_used_at REAL
);
CREATE INDEX integration_unexpired ON integration (bot, number) WHERE NOT expired;
CREATE TABLE review_comment (
    bot text NOT NULL,
    pull_request INTEGER NOT NULL,
    fingerprint text NOT NULL,
    forge_id text NOT NULL,
    discussion text,
    body text NOT NULL,
    resolved_in text,
    created_at REAL NOT NULL,
    PRIMARY KEY (bot, pull_request, fingerprint)
);
CREATE TABLE workspace_snapshot (
    bot text NOT NULL,
    cell text NOT NULL,
    host text NOT NULL,
    number INTEGER NOT NULL,
    commit_sha text NOT NULL,
    swift_version text NOT NULL,
    seen_as text NOT NULL,
    bytes INTEGER NOT NULL,
    sha256 text NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (bot, cell, host)
);
CREATE TABLE cluster_secret (name text PRIMARY KEY, value text NOT NULL);
CREATE TABLE audit_event (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    action text NOT NULL,
    token text,
    address text,
    bot text,
    number INTEGER,
    detail text
);
CREATE INDEX audit_event_at ON audit_event (at);
CREATE TABLE delivery (
    id INTEGER PRIMARY KEY,
    kind text NOT NULL,
    lane text,
    dedupe_key text UNIQUE,
    bot text,
    integration_id INTEGER REFERENCES integration(id) ON DELETE SET NULL,
    payload text NOT NULL,
    body BLOB,
    state text NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at REAL NOT NULL,
    last_error text,
    response_code INTEGER,
    progress text,
    created_at REAL NOT NULL,
    sent_at REAL
);
CREATE INDEX delivery_due ON delivery (kind, next_attempt_at) WHERE state = 'queued';
CREATE INDEX delivery_lane ON delivery (kind, lane, id);
CREATE INDEX delivery_bot ON delivery (kind, state, bot, id);
CREATE TABLE test_shard (
    integration_id INTEGER NOT NULL,
    part INTEGER NOT NULL,
    bot text NOT NULL,
    job text NOT NULL,
    claimed_by text,
    claimed_at REAL,
    attempts INTEGER NOT NULL,
    outcome text,
    offered_at REAL NOT NULL,
    PRIMARY KEY (integration_id, part)
);
