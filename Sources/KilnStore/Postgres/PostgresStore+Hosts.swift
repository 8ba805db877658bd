import Foundation
import KilnCore
import Logging
import PostgresNIO

/// Hosts, their leases and what they recover of each other, all on the database's clock: a host
/// whose own clock is wrong is judged the same as any other.
extension PostgresStore {
    public func heartbeat(_ host: HostReport) async throws(StoreError) {
        // Not news for the other hosts' schedulers and page caches: no NOTIFY.
        try await write("recording this host's heartbeat", notify: nil) { [logger] connection in
            try await connection.execute(
                """
                INSERT INTO host (name, version, executors, busy, bots_digest, lease, started_at, last_heard)
                VALUES (\(host.name), \(host.version), \(host.executors), \(host.busy), \(host.botsDigest), \(host.lease.seconds), now(), now())
                ON CONFLICT (name) DO UPDATE SET last_heard = excluded.last_heard,
                    version = CASE WHEN excluded.executors = 0 THEN host.version ELSE excluded.version END,
                    executors = CASE WHEN excluded.executors = 0 THEN host.executors ELSE excluded.executors END,
                    busy = CASE WHEN excluded.executors = 0 THEN host.busy ELSE excluded.busy END,
                    bots_digest = CASE WHEN excluded.executors = 0 THEN host.bots_digest ELSE excluded.bots_digest END,
                    lease = CASE WHEN excluded.executors = 0 THEN host.lease ELSE excluded.lease END,
                    started_at = CASE WHEN host.last_heard + host.lease * interval '1 second' < now() THEN now() ELSE host.started_at END
                """, logger: logger)
        }
    }

    public func hosts() async throws(StoreError) -> [HostRecord] {
        try await read("reading hosts") { [logger] connection in
            try await connection.rows(
                """
                SELECT name, version, executors, busy, bots_digest, lease, extract(epoch FROM started_at)::double precision AS started,
                    extract(epoch FROM last_heard)::double precision AS heard, last_heard + lease * interval '1 second' < now() AS gone
                FROM host ORDER BY name
                """, logger: logger
            ).map { row in
                HostRecord(
                    name: try row("name"), version: try row("version"), executors: try row("executors"), busy: try row("busy"),
                    botsDigest: try row("bots_digest"), startedAt: Date(storeValue: try row("started")), lastHeard: Date(storeValue: try row("heard")),
                    lease: try row("lease"), gone: try row("gone"))
            }
        }
    }

    public func recoverLostHosts(now: Date) async throws(StoreError) -> [Integration] {
        // One transaction: the integration ends and its commit is queued again together, and the
        // row locks make one host, however many look at once, recover each integration.
        try await write("recovering the integrations of lost hosts") { [logger] connection in
            let lost = try await connection.rows(
                """
                SELECT integration.*, extract(epoch FROM host.last_heard)::double precision AS host_heard FROM integration
                LEFT JOIN host ON host.name = integration.host
                WHERE integration.step NOT IN ('pending', 'completed') AND integration.host IS NOT NULL
                    AND (host.name IS NULL OR host.last_heard + host.lease * interval '1 second' < now())
                FOR UPDATE OF integration SKIP LOCKED
                """, logger: logger)
            var recovered: [Integration] = []
            for row in lost {
                let integration = try Integration(postgres: row)
                let claim = Claim(integration: integration, token: try row("claim_token", as: String?.self) ?? "")
                let reason = StoreRules.lostHostReason(
                    host: integration.host ?? "?", lastHeard: try row("host_heard", as: Double?.self).map(Date.init(storeValue:)), step: integration.step)
                try await Self.appendNote(connection, "\n*** \(reason)\n", to: integration.id, logger: logger)
                recovered.append(
                    try await Self.complete(connection, claim, outcome: IntegrationOutcome(result: .internalError, reason: reason), now: now, logger: logger))
                guard try row("requeue_of", as: Int64?.self) == nil else {
                    logger.warning("not queueing again: this integration was itself queued again after a lost host", metadata: ["bot": "\(integration.bot)"])
                    continue
                }
                let queued = try await Self.enqueue(connection, StoreRules.requeue(integration), now: now, logger: logger)
                if !queued.coalesced {
                    try await connection.execute(
                        "UPDATE integration SET requeue_of = \(integration.id) WHERE id = \(queued.integration.id)", logger: logger)
                }
            }
            // A host gone this long was taken down for good (renamed, retired): it leaves the list.
            try await connection.execute(
                "DELETE FROM host WHERE last_heard < now() - \(StoreRules.forgetHostsAfter.seconds) * interval '1 second'", logger: logger)
            return recovered
        }
    }

    public func holdLease(_ name: String, holder: String, for duration: Duration) async throws(StoreError) -> Bool {
        try await write("holding the lease '\(name)'", notify: nil) { [logger] connection in
            let row = try await connection.row(
                """
                INSERT INTO lease (name, holder, expires_at) VALUES (\(name), \(holder), now() + \(duration.seconds) * interval '1 second')
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                    WHERE lease.holder = excluded.holder OR lease.expires_at < now()
                RETURNING holder
                """, logger: logger)
            return try row?("holder", as: String.self) == holder
        }
    }
}
