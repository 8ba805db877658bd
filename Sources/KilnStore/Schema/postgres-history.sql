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
-- The migrations PostgreSQL shipped before both engines shared one schema (Migrations.swift),
-- applied in order under an advisory lock, so that several hosts starting at once migrate once;
-- never edited.
-- Each migration starts at a "-- migration: NAME" line; its statements end with ";" at a line's end.

-- migration: v1
CREATE TABLE bot (
    name text PRIMARY KEY,
    file text NOT NULL DEFAULT '',
    repository text NOT NULL DEFAULT '',
    branch text NOT NULL DEFAULT '',
    problems text NOT NULL DEFAULT '[]',
    loaded boolean NOT NULL DEFAULT true,
    next_number bigint NOT NULL DEFAULT 1,
    updated_at double precision NOT NULL
);
CREATE TABLE integration (
    id bigserial PRIMARY KEY,
    bot text NOT NULL REFERENCES bot(name),
    number bigint NOT NULL,
    cause text NOT NULL,
    commit_sha text,
    branch text NOT NULL,
    step text NOT NULL,
    result text,
    queued_at double precision NOT NULL,
    started_at double precision,
    ended_at double precision,
    owner text,
    cancel_requested text,
    reason text,
    errors bigint,
    warnings bigint,
    tests bigint,
    test_failures bigint,
    coverage double precision,
    errors_change bigint,
    warnings_change bigint,
    tests_change bigint,
    test_failures_change bigint,
    coverage_change double precision,
    expired boolean NOT NULL DEFAULT false,
    notified_at double precision,
    UNIQUE (bot, number)
);
CREATE INDEX integration_active ON integration (bot, step) WHERE step <> 'completed';
CREATE INDEX integration_to_notify ON integration (id) WHERE notified_at IS NULL;
CREATE TABLE step (
    integration_id bigint NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    name text NOT NULL,
    started_at double precision NOT NULL,
    duration double precision,
    PRIMARY KEY (integration_id, name)
);
CREATE TABLE issue (
    id bigserial PRIMARY KEY,
    integration_id bigint NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    type text NOT NULL,
    message text NOT NULL,
    file text,
    line bigint,
    fingerprint text NOT NULL,
    status text NOT NULL,
    introduced_by text NOT NULL DEFAULT '[]'
);
CREATE INDEX issue_integration ON issue (integration_id);
CREATE TABLE test_case (
    id bigserial PRIMARY KEY,
    integration_id bigint NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    suite text NOT NULL,
    name text NOT NULL,
    status text NOT NULL,
    duration double precision NOT NULL,
    message text,
    file text,
    line bigint
);
CREATE INDEX test_case_integration ON test_case (integration_id);
CREATE TABLE integration_commit (
    integration_id bigint NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    position bigint NOT NULL,
    sha text NOT NULL,
    author text NOT NULL,
    email text NOT NULL,
    date double precision NOT NULL,
    subject text NOT NULL,
    PRIMARY KEY (integration_id, position)
);
CREATE TABLE trigger_run (
    id bigserial PRIMARY KEY,
    integration_id bigint NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    name text NOT NULL,
    phase text NOT NULL,
    exit_status bigint NOT NULL,
    duration double precision NOT NULL
);
CREATE INDEX trigger_run_integration ON trigger_run (integration_id);
CREATE TABLE outbox (
    id bigserial PRIMARY KEY,
    created_at double precision NOT NULL,
    bot text,
    integration_id bigint REFERENCES integration(id) ON DELETE SET NULL,
    dedupe_key text UNIQUE,
    recipients text NOT NULL,
    subject text NOT NULL,
    message bytea NOT NULL,
    state text NOT NULL DEFAULT 'queued',
    attempts bigint NOT NULL DEFAULT 0,
    next_attempt_at double precision NOT NULL,
    last_error text,
    sent_at double precision
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE state = 'queued';
CREATE TABLE webhook_delivery (
    id bigserial PRIMARY KEY,
    received_at double precision NOT NULL,
    forge text NOT NULL,
    event text NOT NULL,
    repository text,
    branch text,
    commit_sha text,
    outcome text NOT NULL,
    status_code bigint NOT NULL,
    integrations text NOT NULL DEFAULT '[]',
    detail text
);

-- migration: v2: hosts, claims and logs
-- Integrations name their host and carry their claim's token; a re-queued one
-- names the integration it stands in for.
ALTER TABLE integration ADD COLUMN host text;
ALTER TABLE integration ADD COLUMN claim_token text;
ALTER TABLE integration ADD COLUMN requeue_of bigint;
-- Heartbeats and leases are on the database's clock, never a host's.
CREATE TABLE host (
    name text PRIMARY KEY,
    version text NOT NULL,
    executors bigint NOT NULL,
    busy bigint NOT NULL,
    bots_digest text NOT NULL,
    lease double precision NOT NULL,
    started_at timestamptz NOT NULL,
    last_heard timestamptz NOT NULL
);
CREATE TABLE lease (
    name text PRIMARY KEY,
    holder text NOT NULL,
    expires_at timestamptz NOT NULL
);
-- Logs in chunks as they arrive, each at its byte offset.
CREATE TABLE log_chunk (
    integration_id bigint NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    start_offset bigint NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (integration_id, start_offset)
);

-- migration: v3: pull requests and commit statuses
ALTER TABLE integration ADD COLUMN pull_number bigint;
ALTER TABLE integration ADD COLUMN pull_title text;
ALTER TABLE integration ADD COLUMN pull_author text;
ALTER TABLE integration ADD COLUMN pull_url text;
ALTER TABLE integration ADD COLUMN pull_head text;
ALTER TABLE integration ADD COLUMN pull_base text;
ALTER TABLE integration ADD COLUMN pull_ref text;
ALTER TABLE integration ADD COLUMN pull_fork boolean NOT NULL DEFAULT false;
ALTER TABLE integration ADD COLUMN status_stage text;
ALTER TABLE integration ADD COLUMN status_commit text;
CREATE INDEX integration_pull ON integration (bot, pull_number, number) WHERE pull_number IS NOT NULL;
CREATE INDEX integration_recent ON integration (bot, queued_at);
CREATE TABLE pull_request (
    bot text NOT NULL,
    number bigint NOT NULL,
    title text NOT NULL,
    author text NOT NULL,
    url text,
    head text NOT NULL,
    base text NOT NULL,
    ref text NOT NULL,
    fork boolean NOT NULL DEFAULT false,
    open boolean NOT NULL DEFAULT true,
    updated_at double precision NOT NULL,
    PRIMARY KEY (bot, number)
);
CREATE TABLE forge_status (
    id bigserial PRIMARY KEY,
    created_at double precision NOT NULL,
    bot text NOT NULL,
    integration_id bigint REFERENCES integration(id) ON DELETE SET NULL,
    kind text NOT NULL,
    api_url text NOT NULL,
    project text NOT NULL,
    token_file text NOT NULL,
    sha text NOT NULL,
    context text NOT NULL,
    state text NOT NULL,
    description text NOT NULL,
    target_url text,
    delivery text NOT NULL DEFAULT 'queued',
    attempts bigint NOT NULL DEFAULT 0,
    next_attempt_at double precision NOT NULL,
    last_error text,
    response_code bigint,
    sent_at double precision
);
CREATE INDEX forge_status_due ON forge_status (next_attempt_at) WHERE delivery = 'queued';
CREATE INDEX forge_status_key ON forge_status (sha, context, id);
CREATE INDEX forge_status_bot ON forge_status (delivery, bot, id);
