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
import KilnStore
import KilnTestSupport
import Testing

/// `test.shards` on a real package under `kiln serve`: one build, the tests split and run at
/// once, one set of results.
@Suite("Shards: one build, the tests split and run at once, the results as one run has them")
struct ShardTests {
    /// Four XCTest tests of 2 s each: one after the other in one process.
    static let slowTests = """
        import Foundation
        import XCTest

        final class SlowTests: XCTestCase {
            func testFirst() { Thread.sleep(forTimeInterval: 2) }
            func testSecond() { Thread.sleep(forTimeInterval: 2) }
            func testThird() { Thread.sleep(forTimeInterval: 2) }
            func testFourth() { Thread.sleep(forTimeInterval: 2) }
        }

        """

    @Test("With shards: 3, every test's result equals a plain run's, each test once, and the shards' slow tests run at once")
    func shards() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit(
            "Slow tests, one failing",
            files: ["Tests/LibTests/SlowTests.swift": Self.slowTests, "Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: true)])
        let served = try await ServedHome(
            bots: [
                "sharded": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {shards: 3}\n",
                "plain": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {order: as-written}\n",
            ],
            config: "executors: 2\n")
        for bot in ["sharded", "plain"] {
            #expect(try await runProcess(Executables.kiln, ["trigger", bot], in: served.home.path).status == 0)
        }
        try await served.eventually("both integrations", timeout: .seconds(240)) {
            try await (served.integrations("sharded") + served.integrations("plain")).filter { $0.step == .completed }.count == 2
        }
        let store = try served.store()
        let sharded = try #require(try await store.integration(bot: "sharded", number: 1))
        let plain = try #require(try await store.integration(bot: "plain", number: 1))
        func results(_ detail: IntegrationDetail) -> [String] { detail.tests.map { "\($0.suite).\($0.name) \($0.status.rawValue)" }.sorted() }
        #expect(results(sharded) == results(plain), "the same tests and results as one plain `swift test`")
        #expect(sharded.tests.count == 8 && Set(sharded.tests.map(\.key)).count == 8, "each test once: \(results(sharded))")
        #expect(sharded.integration.result == .testFailures && sharded.integration.summary?.tests == 8)
        let log = try String(contentsOfFile: served.home.url(".kiln/logs/sharded/1.log"), encoding: .utf8)
        #expect(log.contains("shard 1 of 3: ") && log.contains("shard 3 of 3: ") && !log.contains("shard 4"), "\(log)")
        // One after the other, the slow tests start 2 s apart or more; in shards, some at once.
        let starts = Self.starts(of: "SlowTests", in: log).sorted()
        #expect(starts.count == 4, "\(log)")
        let closest = zip(starts, starts.dropFirst()).map { $1 - $0 }.min() ?? .infinity
        #expect(closest < 1.5, "the shards ran at once: slow tests started \(starts) s into the minute")
        let plainLog = try String(contentsOfFile: served.home.url(".kiln/logs/plain/1.log"), encoding: .utf8)
        #expect(!plainLog.contains("shard "))
    }

    /// The seconds (of the day) at which XCTest started each test of `suite`, from its lines
    /// `Test Case 'SlowTests.testFirst' started at 2026-11-28 22:55:29.324`.
    static func starts(of suite: String, in log: String) -> [Double] {
        log.split(separator: "\n").compactMap { line in
            guard line.contains("Test Case '\(suite).") && line.contains("' started at "), let time = line.split(separator: " ").last else {
                return nil
            }
            let parts = time.split(separator: ":").compactMap { Double($0) }
            return parts.count == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : nil
        }
    }
}
