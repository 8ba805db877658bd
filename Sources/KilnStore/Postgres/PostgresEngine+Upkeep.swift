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

extension PostgresEngine {
    /// Takes this host's share of the database's connections (`ConnectionBudget`) every
    /// `budgetInterval`: fewer as hosts join, more as they leave.
    func keepBudget() async {
        var last = budget.withLock { $0 }
        while await MonotonicClock.system.sleep(for: Self.budgetInterval) {
            last = await takeBudget(keeping: last) ?? last
        }
    }

    /// Reads the database's limit, its reserved slots and the hosts sharing it, and holds this
    /// host's share; returns it, or nil when the database could not say (the host keeps what it
    /// holds: `kept`, or two before any share). Asked on the control lane, which work cannot
    /// hold up.
    func takeBudget(keeping kept: Int?) async -> Int? {
        do {
            let (limit, reserved, hosts) = try await transaction(
                "reading the database's connection limit", on: control, begin: nil, notify: nil, limit: operationLimit
            ) { db in
                let row = try db.rows(
                    """
                    SELECT current_setting('max_connections')::int AS limit_, current_setting('superuser_reserved_connections')::int
                        + COALESCE(NULLIF(current_setting('reserved_connections', true), ''), '0')::int AS reserved,
                        GREATEST(
                            (SELECT count(*) FROM host WHERE last_heard + lease >= \(db.dialect.now)),
                            (SELECT count(DISTINCT application_name) FROM pg_stat_activity
                                WHERE datname = current_database() AND application_name LIKE 'kiln serve %'))::int AS hosts
                    """, []
                ).first
                return (row?["limit_"] ?? 100, row?["reserved"] ?? 3, row?["hosts"] ?? 1) as (Int, Int, Int)
            }
            let share = ConnectionBudget.share(limit: limit, reserved: reserved, hosts: hosts, configured: configured)
            if share != kept {
                setBudget(share)
                logger.info(
                    "connection budget", metadata: ["connections": "\(share)", "of": "\(limit)", "reserved": "\(reserved)", "hosts": "\(hosts)"])
            }
            budget.withLock { $0 = share }
            return share
        } catch {
            let keeping = kept ?? ConnectionBudget.beforeShare
            logger.warning("cannot read the database's connection limit: \(error); keeping \(keeping) connections")
            return nil
        }
    }

    /// Holds at most `connections` (the control connection and the rest for work).
    func setBudget(_ connections: Int) {
        guard work !== control else { return }
        work.setAllowed(connections - 1)
    }

    /// The connections the engine holds now, and may hold.
    var holding: (open: Int, allowed: Int) {
        let (open, allowed) = work.holding
        return work === control ? (open, allowed) : (open + control.holding.open, allowed + 1)
    }

    /// Proves the listening connection alive every `hearingInterval` with a statement on it
    /// (`hearsChanges`): a connection cut off without a word (a network gone) fails it within its
    /// limit, and closing it ends the `LISTEN` too.
    func keepHearing() async {
        while !Task.isCancelled {
            do {
                _ = try await transaction("proving the listening connection", on: control, begin: nil, notify: nil, limit: .seconds(1)) { db in
                    try db.execute("SELECT 1")
                }
                heard(proof: true)
            } catch {
                // `listen` hears of the closed connection and says so.
            }
            await MonotonicClock.system.sleep(for: Self.hearingInterval)
        }
    }

    /// Checks that a notification sent on a work connection reaches the control connection's
    /// `LISTEN` within `limit`. Behind a pooler in transaction or statement mode (PgBouncer's
    /// `pool_mode = transaction`) it does not: the server session that ran `LISTEN` goes back to
    /// the pool when the statement ends, and what it hears goes to whichever client holds it next.
    /// A host there would never hear the others' changes, so it refuses to start.
    func checkNotificationsArrive(within limit: Duration) async throws(StoreError) {
        let token = StoreRules.newToken()
        let heard: Bool
        do {
            let connection = try await control.sharedConnection()
            heard = try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await connection.listen(on: "kiln_probe") { notifications in
                        _ = try await self.write("sending a test notification", lane: .work, notify: nil, limit: limit) { db in
                            try db.execute("SELECT pg_notify('kiln_probe', ?)", token)
                        }
                        for try await notification in notifications where notification.payload == token { return true }
                        return false
                    }
                }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return false
                }
                defer { group.cancelAll() }
                return try await group.next() ?? false
            }
        } catch let error as StoreError {
            throw error
        } catch LaneError.connecting(let reason) {
            throw .unreachable(url: location, reason: reason)
        } catch {
            throw .unreachable(url: location, reason: error.reason)
        }
        guard !heard else { return }
        throw .unsuitable(
            url: location,
            reason: "a notification sent on one of this host's connections did not reach its LISTEN on another within \(limit): "
                + "the database is behind a pooler in transaction or statement mode (PgBouncer's pool_mode = transaction), "
                + "where LISTEN loses its session; give Kiln a pool in session mode (pool_mode = session) or connect to PostgreSQL directly")
    }
}
