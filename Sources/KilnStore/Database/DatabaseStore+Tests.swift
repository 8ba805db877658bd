import Foundation
import KilnCore

extension DatabaseStore {
    public func testHistory(bot: String, suite: String, name: String, limit: Int) async throws(StoreError) -> TestHistory {
        try await read("reading the history of test \(suite)/\(name) of '\(bot)'") { db in
            let runs = try db.rows(
                """
                SELECT integration.number, integration.commit_sha, integration.host, integration.ended_at, test_case.*
                FROM test_case JOIN integration ON integration.id = test_case.integration_id
                WHERE test_case.suite = ? AND test_case.name = ? AND integration.bot = ? AND integration.pull_number IS NULL AND integration.bisection_id IS NULL
                ORDER BY integration.number DESC LIMIT ?
                """, suite, name, bot, max(0, limit)
            ).map { row in
                TestRun(number: row["number"], commit: row["commit_sha"], host: row["host"], endedAt: row["ended_at"], test: TestCase(row: row))
            }
            return TestHistory(suite: suite, name: name, runs: runs)
        }
    }
}
