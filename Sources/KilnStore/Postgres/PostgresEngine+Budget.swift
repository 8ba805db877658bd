import Foundation
import KilnCore

extension PostgresEngine {
    /// Takes this host's share of the database's connections (`ConnectionBudget`) now and every
    /// `budgetInterval`: fewer as hosts join, more as they leave. Asked on the control lane, which
    /// work cannot hold up.
    func keepBudget() async {
        var last: Int?
        while !Task.isCancelled {
            do {
                let (limit, reserved, hosts) = try await transaction(
                    "reading the database's connection limit", on: control, begin: nil, notify: nil, limit: operationLimit
                ) { db in
                    let row = try db.rows(
                        """
                        SELECT current_setting('max_connections')::int AS limit_, current_setting('superuser_reserved_connections')::int
                            + COALESCE(NULLIF(current_setting('reserved_connections', true), ''), '0')::int AS reserved,
                            (SELECT count(*) FROM host WHERE last_heard + lease >= \(db.dialect.now))::int AS hosts
                        """, []
                    ).first
                    return (row?["limit_"] ?? 100, row?["reserved"] ?? 3, row?["hosts"] ?? 1) as (Int, Int, Int)
                }
                let share = ConnectionBudget.share(limit: limit, reserved: reserved, hosts: hosts, configured: configured)
                if share != last {
                    setBudget(share)
                    logger.info(
                        "connection budget", metadata: ["connections": "\(share)", "of": "\(limit)", "reserved": "\(reserved)", "hosts": "\(hosts)"])
                    last = share
                }
            } catch {
                logger.warning("cannot read the database's connection limit: \(error); keeping \(last ?? configured) connections")
            }
            try? await Task.sleep(for: Self.budgetInterval)
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
}
