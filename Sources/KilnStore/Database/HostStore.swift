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
import KilnPresentation

/// Hosts, their leases and what they recover of each other, all on the database's clock
/// (`SQLDialect.now`): a host whose own clock is wrong is judged the same as any other.
/// The hosts that share the store, their heartbeats and leases (`HostRegistry`).
struct HostStore<Engine: StoreEngine>: HostRegistry, StoreRole {
    let engine: Engine
}

extension HostStore {
    @discardableResult
    public func heartbeat(_ host: HostReport) async throws(StoreError) -> Bool {
        // `kiln run` beside one SQLite file is judged by its process, never by a lease: its
        // reports are not recorded, so it leaves no host behind to show as gone.
        guard engine.sharedByHosts || host.executors > 0 else { return false }
        let shared = engine.sharedByHosts
        // On the control lane, which no work of this host holds up; not news for the other hosts'
        // schedulers and page caches.
        return try await write("recording this host's heartbeat", lane: .control, notify: nil) { db in
            let now = db.dialect.now
            try db.execute(
                """
                INSERT INTO host (name, version, executors, busy, bots_digest, lease, toolchains, address, started_at, last_heard)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, \(now), \(now))
                ON CONFLICT (name) DO UPDATE SET last_heard = excluded.last_heard,
                    version = CASE WHEN excluded.executors = 0 THEN host.version ELSE excluded.version END,
                    executors = CASE WHEN excluded.executors = 0 THEN host.executors ELSE excluded.executors END,
                    busy = CASE WHEN excluded.executors = 0 THEN host.busy ELSE excluded.busy END,
                    bots_digest = CASE WHEN excluded.executors = 0 THEN host.bots_digest ELSE excluded.bots_digest END,
                    lease = CASE WHEN excluded.executors = 0 THEN host.lease ELSE excluded.lease END,
                    toolchains = CASE WHEN excluded.executors = 0 THEN host.toolchains ELSE excluded.toolchains END,
                    address = CASE WHEN excluded.executors = 0 THEN host.address ELSE excluded.address END,
                    started_at = CASE WHEN host.last_heard + host.lease < excluded.last_heard THEN excluded.started_at ELSE host.started_at END
                """, host.name, host.version, host.executors, host.busy, host.botsDigest, host.lease.seconds, JSON.encode(host.toolchains),
                host.address)
            // What a recovery would do, found with the index of unfinished integrations, so that
            // hosts scan for lost work only when a lease has lapsed.
            let silent = shared ? "EXISTS (SELECT 1 \(Self.lostWork(db))) OR" : ""
            let due: Bool? = try db.value(
                "SELECT \(silent) EXISTS (SELECT 1 FROM host WHERE last_heard < \(now) - ?) AS due", StoreRules.forgetHostsAfter.seconds)
            return due ?? false
        }
    }

    public func ping() async throws(StoreError) {
        let _: Int? = try await readStatement("asking the store for one row") { db in try db.value("SELECT 1") }
    }

    public func hosts() async throws(StoreError) -> [HostRecord] {
        try await read("reading hosts") { db in
            try db.rows("SELECT host.*, last_heard + lease < \(db.dialect.now) AS gone FROM host ORDER BY name").map(HostRecord.init(row:))
        }
    }

    /// Ends the running integrations of hosts whose lease ran out and queues each one's commit
    /// again, once, in one transaction: the row locks make one host, however many look at once,
    /// recover each integration. Only a database that hosts share (whose logs are in it) has
    /// lost hosts; on SQLite integrations are judged by their process, but a host gone this long
    /// is forgotten, as on every engine.
    public func recoverLostHosts(now: Date) async throws(StoreError) -> [Integration] {
        let shared = engine.sharedByHosts
        return try await write("recovering the integrations of lost hosts", notify: .stop) { db in
            var recovered: [Integration] = []
            let lost =
                shared
                ? try db.rows(
                    "SELECT integration.*, host.last_heard AS host_heard \(Self.lostWork(db))\(db.dialect.lockSkippingLocked(of: "integration"))")
                : []
            for row in lost {
                let claim = Claim(row: row)
                let integration = claim.integration
                let reason = IntegrationReason.hostLost(host: integration.host ?? "?", lastHeard: row["host_heard"], step: integration.step)
                try Self.appendNote(db, reason.sentence, to: integration.id)
                recovered.append(try Self.complete(db, claim, outcome: IntegrationOutcome(result: .internalError, reason: reason), now: now))
                // A re-queued integration that is lost in turn is not queued a third time. A bisect
                // integration is not queued again: its bisection takes the commit as skipped; nor a
                // cell: its integration reads it as ended. An integration queued again runs its
                // cells anew, so its queued cells end here.
                try Self.endCells(db, bot: integration.bot, number: integration.number, lacking: nil, reason: reason, now: now)
                guard row.value("requeue_of") == .null, integration.bisectionID == nil, integration.cellOf == nil else { continue }
                let queued = try Queueing.enqueue(db, StoreRules.requeue(integration), now: now)
                if !queued.coalesced { try db.execute("UPDATE integration SET requeue_of = ? WHERE id = ?", integration.id, queued.integration.id) }
            }
            // A host gone this long was taken down for good (renamed, retired): it leaves the list.
            try db.execute("DELETE FROM host WHERE last_heard < \(db.dialect.now) - ?", StoreRules.forgetHostsAfter.seconds)
            return recovered
        }
    }

    public func holdLease(_ name: String, holder: String, for duration: Duration) async throws(StoreError) -> Bool {
        try await write("holding the lease '\(name)'", lane: .control, notify: nil) { db in
            let now = db.dialect.now
            let row = try db.row(
                """
                INSERT INTO lease (name, holder, expires_at) VALUES (?, ?, \(now) + ?)
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                    WHERE lease.holder = excluded.holder OR lease.expires_at < \(now)
                RETURNING holder
                """, name, holder, duration.seconds)
            return row?["holder"] == holder
        }
    }
}

extension HostStore {
    /// The unfinished integrations of hosts whose lease ran out (or that left the list): what
    /// `recoverLostHosts` ends, and what a heartbeat looks for to say a recovery is due.
    static func lostWork(_ db: any SQLConnection) -> String {
        """
        FROM integration LEFT JOIN host ON host.name = integration.host
        WHERE integration.step NOT IN ('pending', 'completed') AND integration.host IS NOT NULL
            AND (host.name IS NULL OR host.last_heard + host.lease < \(db.dialect.now))
        """
    }
}
