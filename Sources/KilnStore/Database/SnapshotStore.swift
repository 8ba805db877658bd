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

import Foundation
import KilnCore

/// Workspaces' origins and the snapshots hosts keep (`WorkspaceCatalog`).
struct SnapshotStore<Engine: StoreEngine>: WorkspaceCatalog, StoreRole {
    let engine: Engine
}

extension SnapshotStore {
    public func setWorkspace(_ claim: Claim, origin: WorkspaceOrigin) async throws(StoreError) {
        try await write("recording where the workspace came from", notify: nil) { db in
            try Self.checkClaim(db, claim)
            try db.execute("UPDATE integration SET workspace = ? WHERE id = ?", JSON.encode(origin), claim.id)
        }
    }

    public func recordSnapshot(_ snapshot: WorkspaceSnapshot) async throws(StoreError) {
        try await write("recording a workspace snapshot of '\(snapshot.bot)'", notify: nil) { db in
            try db.execute(
                """
                INSERT INTO workspace_snapshot (bot, cell, host, number, commit_sha, swift_version, seen_as, bytes, sha256, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (bot, cell, host) DO UPDATE SET number = excluded.number, commit_sha = excluded.commit_sha,
                    swift_version = excluded.swift_version, seen_as = excluded.seen_as, bytes = excluded.bytes, sha256 = excluded.sha256,
                    created_at = excluded.created_at
                """, snapshot.bot, snapshot.cell, snapshot.host, snapshot.number, snapshot.commit, snapshot.swiftVersion, snapshot.seenAs,
                snapshot.bytes, snapshot.sha256, snapshot.createdAt)
        }
    }

    public func forgetSnapshots(bot: String, cell: String?, host: String) async throws(StoreError) {
        try await write("forgetting the workspace snapshots of '\(bot)'", notify: nil) { db in
            if let cell {
                try db.execute("DELETE FROM workspace_snapshot WHERE bot = ? AND cell = ? AND host = ?", bot, cell, host)
            } else {
                try db.execute("DELETE FROM workspace_snapshot WHERE bot = ? AND host = ?", bot, host)
            }
        }
    }

    public func snapshots(bot: String, cell: String, elsewhereThan host: String) async throws(StoreError) -> [(
        snapshot: WorkspaceSnapshot, address: String
    )] {
        try await readStatement("reading the workspace snapshots of '\(bot)'") { db in
            try db.rows(
                """
                SELECT workspace_snapshot.*, host.address FROM workspace_snapshot JOIN host ON host.name = workspace_snapshot.host
                WHERE bot = ? AND cell = ? AND workspace_snapshot.host <> ? AND host.address IS NOT NULL
                    AND host.last_heard + host.lease >= \(db.dialect.now)
                ORDER BY created_at DESC
                """, bot, cell, host
            ).map { row in
                let snapshot = WorkspaceSnapshot(
                    bot: row["bot"], cell: row["cell"], host: row["host"], number: row["number"], commit: row["commit_sha"],
                    swiftVersion: row["swift_version"], seenAs: row["seen_as"], bytes: row["bytes"], sha256: row["sha256"],
                    createdAt: row["created_at"])
                return (snapshot, row["address"])
            }
        }
    }

    public func clusterSecret() async throws(StoreError) -> String {
        if let known = try await readStatement("reading the hosts' secret", { db in try Self.storedSecret(db) }) { return known }
        let made = StoreRules.newToken() + StoreRules.newToken()
        return try await write("making the hosts' secret", notify: nil) { db in
            try db.execute("INSERT INTO cluster_secret (name, value) VALUES ('snapshots', ?) ON CONFLICT DO NOTHING", made)
            return try Self.storedSecret(db) ?? made
        }
    }

    private static func storedSecret(_ db: any SQLConnection) throws -> String? {
        try db.value("SELECT value FROM cluster_secret WHERE name = 'snapshots'")
    }
}
