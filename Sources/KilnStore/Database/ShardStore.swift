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

/// The parts of sharded testing steps offered across hosts (`ShardQueue`).
struct ShardStore<Engine: StoreEngine>: ShardQueue, StoreRole {
    let engine: Engine
}

extension ShardStore {
    public func offerShards(_ jobs: [ShardJob], now: Date) async throws(StoreError) {
        guard !jobs.isEmpty else { return }
        let columns = ["integration_id", "part", "bot", "job", "attempts", "offered_at"]
        let arguments = jobs.flatMap { job in [job.integrationID, job.part, job.bot, JSON.encode(job), 0, now] as [any SQLBindable] }
        try await write("offering \(jobs.count) test shards of \(jobs[0].bot) #\(jobs[0].number)", notify: .queue) { db in
            // Those of integrations that ended without withdrawing theirs (their host went silent).
            try db.execute("DELETE FROM test_shard WHERE integration_id IN (SELECT id FROM integration WHERE step = 'completed')")
            try db.execute(
                "INSERT INTO test_shard (\(columns.joined(separator: ", "))) VALUES \(placeholders(rows: jobs.count, of: columns.count))", arguments)
        }
    }

    public func claimShard(host: String, bots: Set<String>, of integrationID: Int64?, now: Date) async throws(StoreError) -> ShardState? {
        guard !bots.isEmpty else { return nil }
        let names = bots.sorted()
        let arguments: [any SQLBindable] = names + (integrationID.map { [$0] } ?? [])
        let only = integrationID == nil ? "" : " AND test_shard.integration_id = ?"
        // Most looks find nothing (an idle host looks at every tick): a statement's read first,
        // a transaction only when some part of a running integration is not done. The parts an
        // integration left when its host went silent stay until the next offer, and must not
        // make every idle host open a transaction until then.
        let open = try await readStatement("looking for test shards") { db in
            try db.rows(
                """
                SELECT 1 AS found FROM test_shard JOIN integration ON integration.id = test_shard.integration_id
                WHERE test_shard.outcome IS NULL AND integration.step NOT IN ('pending', 'completed') LIMIT 1
                """
            ).isEmpty == false
        }
        guard open else { return nil }
        return try await write("claiming a test shard") { db in
            // Free: never claimed, or claimed by a host whose lease ran out. Of an integration
            // still running: one that ended (or was taken over from a silent host) has no use for it.
            guard
                let row = try db.rows(
                    """
                    SELECT test_shard.integration_id, test_shard.part FROM test_shard
                    JOIN integration ON integration.id = test_shard.integration_id
                    WHERE test_shard.outcome IS NULL AND test_shard.bot IN (\(placeholders(names.count)))\(only)
                        AND integration.step NOT IN ('pending', 'completed')
                        AND (test_shard.claimed_by IS NULL OR test_shard.claimed_by NOT IN
                            (SELECT name FROM host WHERE last_heard + lease >= \(db.dialect.now)))
                    ORDER BY test_shard.offered_at, test_shard.integration_id, test_shard.part LIMIT 1\(db.dialect.lockSkippingLocked())
                    """, arguments
                ).first
            else { return nil }
            let claimed = try db.row(
                """
                UPDATE test_shard SET claimed_by = ?, claimed_at = ?, attempts = attempts + 1
                WHERE integration_id = ? AND part = ? RETURNING *
                """, host, now, row["integration_id"] as Int64, row["part"] as Int)
            return claimed.flatMap(Self.state(row:))
        }
    }

    public func completeShard(integrationID: Int64, part: Int, host: String, outcome: ShardOutcome) async throws(StoreError) -> Bool {
        try await write("recording test shard \(part) of integration \(integrationID)", notify: .queue) { db in
            try db.execute(
                "UPDATE test_shard SET outcome = ? WHERE integration_id = ? AND part = ? AND claimed_by = ? AND outcome IS NULL",
                JSON.encode(outcome), integrationID, part, host) > 0
        }
    }

    public func releaseShard(integrationID: Int64, part: Int, host: String) async throws(StoreError) {
        try await write("giving back test shard \(part) of integration \(integrationID)", notify: .queue) { db in
            try db.execute(
                "UPDATE test_shard SET claimed_by = NULL WHERE integration_id = ? AND part = ? AND claimed_by = ? AND outcome IS NULL",
                integrationID, part, host)
        }
    }

    public func shards(of integrationID: Int64) async throws(StoreError) -> [ShardState] {
        try await readStatement("reading the test shards of integration \(integrationID)") { db in
            try db.rows("SELECT * FROM test_shard WHERE integration_id = ? ORDER BY part", integrationID).compactMap(Self.state(row:))
        }
    }

    public func idleExecutors(elsewhereThan host: String) async throws(StoreError) -> Int {
        try await readStatement("reading the other hosts' idle executors") { db in
            try db.rows(
                """
                SELECT host.executors
                    - (SELECT count(*) FROM integration WHERE integration.host = host.name AND integration.step NOT IN ('pending', 'completed'))
                    - (SELECT count(*) FROM test_shard WHERE test_shard.claimed_by = host.name AND test_shard.outcome IS NULL) AS idle
                FROM host WHERE host.name <> ? AND host.address IS NOT NULL AND host.executors > 0
                    AND host.last_heard + host.lease >= \(db.dialect.now)
                """, host
            ).reduce(0) { $0 + max(0, $1["idle"] as Int) }
        }
    }

    public func withdrawShards(of integrationID: Int64) async throws(StoreError) {
        try await write("withdrawing the test shards of integration \(integrationID)", notify: nil) { db in
            try db.execute("DELETE FROM test_shard WHERE integration_id = ?", integrationID)
        }
    }

    /// The shard a row holds; nil when its job cannot be read (written by a later version).
    static func state(row: SQLRow) -> ShardState? {
        guard let job = JSON.decode(ShardJob?.self, from: row["job"], default: nil) else { return nil }
        let outcome = JSON.decode(ShardOutcome?.self, from: row["outcome"], default: nil)
        return ShardState(job: job, claimedBy: row["claimed_by"], attempts: row["attempts"], outcome: outcome)
    }
}
