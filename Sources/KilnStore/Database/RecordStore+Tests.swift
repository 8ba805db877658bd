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

extension RecordStore {
    public func testHistory(bot: String, suite: String, name: String, limit: Int) async throws(StoreError) -> TestHistory {
        try await read("reading the history of test \(suite)/\(name) of '\(bot)'") { db in
            try Self.history(db, bot: bot, suite: suite, name: name, limit: limit)
        }
    }

    public func quarantinedTests(bot: String, limit: Int, results: Int) async throws(StoreError) -> [TestHistory] {
        try await read("reading the quarantined tests of '\(bot)'") { db in
            try db.rows(
                """
                SELECT suite, name FROM test_case WHERE quarantined AND integration_id = (
                    SELECT id FROM integration WHERE bot = ? AND step = 'completed' AND \(Self.branchOnly) ORDER BY number DESC LIMIT 1)
                ORDER BY id LIMIT ?
                """, bot, max(0, limit)
            ).map { row in try Self.history(db, bot: bot, suite: row["suite"], name: row["name"], limit: results) }
        }
    }
}

extension RecordStore {
    /// A test's results on `bot`'s branch, newest first, within the caller's transaction.
    static func history(_ db: any SQLConnection, bot: String, suite: String, name: String, limit: Int) throws -> TestHistory {
        let runs = try db.rows(
            """
            SELECT integration.number, integration.commit_sha, integration.host, integration.ended_at, test_case.*
            FROM test_case JOIN integration ON integration.id = test_case.integration_id
            WHERE test_case.suite = ? AND test_case.name = ? AND integration.bot = ? AND \(Self.branchOnly)
            ORDER BY integration.number DESC LIMIT ?
            """, suite, name, bot, max(0, limit)
        ).map { row in
            TestRun(number: row["number"], commit: row["commit_sha"], host: row["host"], endedAt: row["ended_at"], test: TestCase(row: row))
        }
        return TestHistory(suite: suite, name: name, runs: runs)
    }
}
