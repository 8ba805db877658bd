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

/// Mail to send and integrations to mail about (`MailOutbox`), over the generic `Deliveries`.
struct MailStore<Engine: StoreEngine>: MailOutbox, StoreRole {
    let engine: Engine
}

extension MailStore {
    public func integrationsToNotify(limit: Int) async throws(StoreError) -> [Integration] {
        try await readStatement("reading integrations to notify") { db in
            try db.rows(
                "SELECT * FROM integration WHERE notified_at IS NULL AND step = 'completed' AND bisection_id IS NULL AND cell_of IS NULL ORDER BY id LIMIT ?",
                limit
            )
            .map(Integration.init(row:))
        }
    }

    public func markNotified(_ ids: [Int64], now: Date) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        // Rows another host is marking are skipped, not waited for: it marks them.
        try await write("recording notified integrations") { db in
            try db.execute(
                """
                UPDATE integration SET notified_at = ? WHERE id IN (
                    SELECT id FROM integration WHERE id IN (\(placeholders(ids.count))) AND notified_at IS NULL\(db.dialect.lockSkippingLocked()))
                """, [now] + ids)
        }
    }

    public func markAllNotified(now: Date) async throws(StoreError) -> Int {
        // Every host without mail does this at every tick: rows another host is marking are
        // skipped, not waited for. Waiting, 24 hosts queued behind each other's updates for
        // 0.4 s at each tick, each holding one of its connections meanwhile.
        try await write("recording notified integrations") { db in
            try db.execute(
                """
                UPDATE integration SET notified_at = ? WHERE id IN (
                    SELECT id FROM integration WHERE notified_at IS NULL AND step = 'completed'\(db.dialect.lockSkippingLocked()))
                """, now)
        }
    }

    public func digest(bot: String, from: Date, to: Date) async throws(StoreError) -> DigestFigures {
        try await read("reading the digest of '\(bot)'") { db in
            let range: [any SQLBindable] = [bot, from, to]
            let inPeriod =
                "integration.bot = ? AND integration.step = 'completed' AND integration.ended_at >= ? AND integration.ended_at < ? AND \(Self.branchOnly)"
            var results: [IntegrationResult: Int] = [:]
            for row in try db.rows("SELECT result, count(*) AS n FROM integration WHERE \(inPeriod) GROUP BY result", range) {
                if let result: IntegrationResult = row["result"] { results[result] = row["n"] }
            }
            let average: Double? = try db.rows(
                "SELECT avg(ended_at - started_at) FROM integration WHERE \(inPeriod) AND started_at IS NOT NULL", range
            ).first.flatMap { $0.values.first.flatMap(Double.init(sqlValue:)) }
            var issues: [String: Int] = [:]
            for row in try db.rows(
                "SELECT issue.status, count(*) AS n FROM issue JOIN integration ON integration.id = issue.integration_id WHERE \(inPeriod) GROUP BY issue.status",
                range)
            {
                issues[row["status"]] = row["n"]
            }
            let lastWithTests = try db.rows(
                """
                SELECT id FROM integration WHERE \(inPeriod) AND EXISTS (SELECT 1 FROM test_case WHERE integration_id = integration.id)
                ORDER BY number DESC LIMIT 1
                """, range
            ).first.map { $0["id"] as Int64 }
            let slowest = try lastWithTests.map { id in
                try db.rows("SELECT * FROM test_case WHERE integration_id = ? ORDER BY duration DESC LIMIT 5", id).map {
                    TestCase(suite: $0["suite"], name: $0["name"], status: $0["status"], duration: $0["duration"])
                }
            }
            let last = try db.row(
                "SELECT * FROM integration WHERE bot = ? AND step = 'completed' AND ended_at < ? AND \(Self.branchOnly) ORDER BY number DESC LIMIT 1",
                bot, to
            ).map(Integration.init(row:))
            let flaky = try db.rows(
                """
                SELECT test_case.suite, test_case.name, count(*) AS n FROM test_case JOIN integration ON integration.id = test_case.integration_id
                WHERE \(inPeriod) AND test_case.status = 'flaky' GROUP BY test_case.suite, test_case.name ORDER BY n DESC, test_case.suite, test_case.name
                LIMIT 10
                """, range
            ).map { FlakyCount(name: "\($0["suite"] as String).\($0["name"] as String)", times: $0["n"]) }
            return DigestFigures(
                results: results, count: results.values.reduce(0, +), averageDuration: average, issuesIntroduced: issues["new"] ?? 0,
                issuesResolved: issues["resolved"] ?? 0, slowestTests: slowest ?? [], last: last, flakyTests: flaky)
        }
    }
}

extension StoreRole {
    /// `SELECT column, count(*) FROM table GROUP BY column`, by the column's values.
    static func counts<Key: RawRepresentable & Hashable>(_ db: any SQLConnection, of column: String, in table: String, as key: Key.Type) throws
        -> [Key: Int] where Key.RawValue == String
    {
        var counts: [Key: Int] = [:]
        for row in try db.rows("SELECT \(column) AS key, count(*) AS n FROM \(table) GROUP BY \(column)") {
            if let key = Key(rawValue: row["key"]) { counts[key] = row["n"] }
        }
        return counts
    }
}
