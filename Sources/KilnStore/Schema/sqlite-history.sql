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
-- The migrations SQLite shipped before both engines shared one schema (Migrations.swift), as
-- GRDB recorded them (grdb_migrations); never edited. Names here are v1-v4's camelCase, renamed by v5.
-- Each migration starts at a "-- migration: NAME" line; its statements end with ";" at a line's end.

-- migration: v1
CREATE TABLE bot (
    name TEXT PRIMARY KEY,
    file TEXT NOT NULL DEFAULT '',
    repository TEXT NOT NULL DEFAULT '',
    branch TEXT NOT NULL DEFAULT '',
    problems TEXT NOT NULL DEFAULT '[]',
    loaded INTEGER NOT NULL DEFAULT 1,
    nextNumber INTEGER NOT NULL DEFAULT 1,
    updatedAt REAL NOT NULL
);
CREATE TABLE integration (
    id INTEGER PRIMARY KEY,
    bot TEXT NOT NULL REFERENCES bot(name),
    number INTEGER NOT NULL,
    cause TEXT NOT NULL,
    commitSha TEXT,
    branch TEXT NOT NULL,
    step TEXT NOT NULL,
    result TEXT,
    queuedAt REAL NOT NULL,
    startedAt REAL,
    endedAt REAL,
    owner TEXT,
    cancelRequested TEXT,
    reason TEXT,
    errors INTEGER,
    warnings INTEGER,
    tests INTEGER,
    testFailures INTEGER,
    coverage REAL,
    errorsChange INTEGER,
    warningsChange INTEGER,
    testsChange INTEGER,
    testFailuresChange INTEGER,
    coverageChange REAL,
    expired INTEGER NOT NULL DEFAULT 0,
    UNIQUE (bot, number)
);
-- The few queued and running integrations. Queries repeat `step != 'completed'`
-- literally, so that SQLite sees this partial index applies.
CREATE INDEX integrationActive ON integration(bot, step) WHERE step != 'completed';
CREATE TABLE step (
    integrationId INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    startedAt REAL NOT NULL,
    duration REAL,
    PRIMARY KEY (integrationId, name)
);
CREATE TABLE issue (
    id INTEGER PRIMARY KEY,
    integrationId INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    type TEXT NOT NULL,
    message TEXT NOT NULL,
    file TEXT,
    line INTEGER,
    fingerprint TEXT NOT NULL,
    status TEXT NOT NULL,
    introducedBy TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX issueIntegration ON issue(integrationId);
CREATE TABLE testCase (
    id INTEGER PRIMARY KEY,
    integrationId INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    suite TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    duration REAL NOT NULL,
    message TEXT,
    file TEXT,
    line INTEGER
);
CREATE INDEX testCaseIntegration ON testCase(integrationId);
CREATE TABLE integrationCommit (
    integrationId INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    sha TEXT NOT NULL,
    author TEXT NOT NULL,
    email TEXT NOT NULL,
    date REAL NOT NULL,
    subject TEXT NOT NULL,
    PRIMARY KEY (integrationId, position)
);
CREATE TABLE triggerRun (
    id INTEGER PRIMARY KEY,
    integrationId INTEGER NOT NULL REFERENCES integration(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    phase TEXT NOT NULL,
    exitStatus INTEGER NOT NULL,
    duration REAL NOT NULL
);
CREATE INDEX triggerRunIntegration ON triggerRun(integrationId);
CREATE TABLE outbox (
    id INTEGER PRIMARY KEY,
    createdAt REAL NOT NULL,
    bot TEXT,
    integrationId INTEGER REFERENCES integration(id) ON DELETE SET NULL,
    dedupeKey TEXT UNIQUE,
    recipients TEXT NOT NULL,
    subject TEXT NOT NULL,
    message BLOB NOT NULL,
    state TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    nextAttemptAt REAL NOT NULL,
    lastError TEXT,
    sentAt REAL
);
CREATE INDEX outboxDue ON outbox(nextAttemptAt) WHERE state = 'queued';
CREATE TABLE webhookDelivery (
    id INTEGER PRIMARY KEY,
    receivedAt REAL NOT NULL,
    forge TEXT NOT NULL,
    event TEXT NOT NULL,
    repository TEXT,
    branch TEXT,
    commitSha TEXT,
    outcome TEXT NOT NULL,
    statusCode INTEGER NOT NULL,
    integrations TEXT NOT NULL DEFAULT '[]',
    detail TEXT
);

-- migration: v2: notifications
-- Integrations completed before mail existed count as notified, so an upgrade sends
-- no mail about the past.
ALTER TABLE integration ADD COLUMN notifiedAt REAL;
UPDATE integration SET notifiedAt = endedAt WHERE step = 'completed';
CREATE INDEX integrationToNotify ON integration(id) WHERE notifiedAt IS NULL;

-- migration: v3: hosts and claims
-- Integrations name their host and carry their claim's token; a re-queued one names
-- the integration it stands in for. Hosts heartbeat; leases say who does what once.
ALTER TABLE integration ADD COLUMN host TEXT;
ALTER TABLE integration ADD COLUMN claimToken TEXT;
ALTER TABLE integration ADD COLUMN requeueOf INTEGER;
CREATE TABLE host (
    name TEXT PRIMARY KEY,
    version TEXT NOT NULL,
    executors INTEGER NOT NULL,
    busy INTEGER NOT NULL,
    botsDigest TEXT NOT NULL,
    lease REAL NOT NULL,
    startedAt REAL NOT NULL,
    lastHeard REAL NOT NULL
);
CREATE TABLE lease (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expiresAt REAL NOT NULL
);

-- migration: v4: pull requests and commit statuses
-- An integration of a pull request keeps the pull request as it was then; the
-- pullRequest table says which are open. Integrations remember the last commit status
-- composed for them; forgeStatus is the statuses' outbox, delivered in id order per
-- commit and context.
ALTER TABLE integration ADD COLUMN pullNumber INTEGER;
ALTER TABLE integration ADD COLUMN pullTitle TEXT;
ALTER TABLE integration ADD COLUMN pullAuthor TEXT;
ALTER TABLE integration ADD COLUMN pullUrl TEXT;
ALTER TABLE integration ADD COLUMN pullHead TEXT;
ALTER TABLE integration ADD COLUMN pullBase TEXT;
ALTER TABLE integration ADD COLUMN pullRef TEXT;
ALTER TABLE integration ADD COLUMN pullFork INTEGER NOT NULL DEFAULT 0;
ALTER TABLE integration ADD COLUMN statusStage TEXT;
ALTER TABLE integration ADD COLUMN statusCommit TEXT;
CREATE INDEX integrationPull ON integration(bot, pullNumber, number) WHERE pullNumber IS NOT NULL;
CREATE INDEX integrationRecent ON integration(bot, queuedAt);
CREATE TABLE pullRequest (
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
    updatedAt REAL NOT NULL,
    PRIMARY KEY (bot, number)
);
CREATE TABLE forgeStatus (
    id INTEGER PRIMARY KEY,
    createdAt REAL NOT NULL,
    bot TEXT NOT NULL,
    integrationId INTEGER REFERENCES integration(id) ON DELETE SET NULL,
    kind TEXT NOT NULL,
    apiUrl TEXT NOT NULL,
    project TEXT NOT NULL,
    tokenFile TEXT NOT NULL,
    sha TEXT NOT NULL,
    context TEXT NOT NULL,
    state TEXT NOT NULL,
    description TEXT NOT NULL,
    targetUrl TEXT,
    delivery TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    nextAttemptAt REAL NOT NULL,
    lastError TEXT,
    responseCode INTEGER,
    sentAt REAL
);
CREATE INDEX forgeStatusDue ON forgeStatus(nextAttemptAt) WHERE delivery = 'queued';
CREATE INDEX forgeStatusKey ON forgeStatus(sha, context, id);
CREATE INDEX forgeStatusBot ON forgeStatus(delivery, bot, id);
