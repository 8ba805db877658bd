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
    /// Four XCTest tests of 3 s each: one after the other in one process; 12 s recorded, worth two
    /// shards to `shards: auto`.
    static let slowTests = """
        import Foundation
        import XCTest

        final class SlowTests: XCTestCase {
            func testFirst() { Thread.sleep(forTimeInterval: 3) }
            func testSecond() { Thread.sleep(forTimeInterval: 3) }
            func testThird() { Thread.sleep(forTimeInterval: 3) }
            func testFourth() { Thread.sleep(forTimeInterval: 3) }
        }

        """

    @Test(
        "With shards: 3, every test's result equals a plain run's, each test once, and the shards' slow tests run at once; auto splits by the idle executors; fail-fast stops every shard"
    )
    func shards() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit(
            "Slow tests, one failing",
            files: ["Tests/LibTests/SlowTests.swift": Self.slowTests, "Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: true)])
        let served = try await ServedHome(
            bots: [
                "sharded": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {shards: 3}\n",
                "app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {order: as-written}\n",
            ],
            config: "executors: 2\n", seeded: ["app"])
        for bot in ["sharded", "app"] {
            #expect(try await runProcess(Executables.kiln, ["trigger", bot], in: served.home.path).status == 0)
        }
        try await served.eventually("both integrations", timeout: .seconds(240)) {
            try await (served.integrations("sharded") + served.integrations("app")).filter { $0.step == .completed }.count == 2
        }
        let store = try served.store()
        let sharded = try #require(try await store.integration(bot: "sharded", number: 1))
        let plain = try #require(try await store.integration(bot: "app", number: 1))
        func results(_ detail: IntegrationDetail) -> [String] { detail.tests.map { "\($0.suite).\($0.name) \($0.status.rawValue)" }.sorted() }
        #expect(results(sharded) == results(plain), "the same tests and results as one plain `swift test`")
        #expect(sharded.tests.count == 8 && Set(sharded.tests.map(\.key)).count == 8, "each test once: \(results(sharded))")
        #expect(sharded.integration.result == .testFailures && sharded.integration.summary?.tests == 8)
        let log = try String(contentsOfFile: served.home.url(".kiln/logs/sharded/1.log"), encoding: .utf8)
        #expect(log.contains("shard 1 of 3: ") && log.contains("shard 3 of 3: ") && !log.contains("shard 4"), "\(log)")
        // One after the other, the slow tests start 3 s apart or more; in shards, some at once.
        let starts = Self.starts(of: "SlowTests", in: log).sorted()
        #expect(starts.count == 4, "\(log)")
        let closest = zip(starts, starts.dropFirst()).map { $1 - $0 }.min() ?? .infinity
        #expect(closest < 1.5, "the shards ran at once: slow tests started \(starts) s into the minute")
        let plainLog = try String(contentsOfFile: served.home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        #expect(!plainLog.contains("shard "))
        #expect(log.contains("3 shards at once: on this executor and "), "\(log)")
        let port = try await served.server.waitForPort()
        let shards = try Self.shards(try await PullRequestTests.get("/api/bots/sharded/integrations/1", port: port))
        #expect(shards.map { $0["index"] as? Int } == [1, 2, 3], "\(shards)")
        #expect(shards.compactMap { $0["tests"] as? Int }.reduce(0, +) == 8, "every test in one shard: \(shards)")
        #expect(shards.allSatisfy { ($0["duration"] as? Double ?? 0) > 0 && $0["workspace"] as? String == "integration" }, "\(shards)")
        #expect(shards.allSatisfy { ($0["host"] as? String)?.isEmpty == false }, "\(shards)")
        #expect(try Self.shards(try await PullRequestTests.get("/api/bots/app/integrations/1", port: port)).isEmpty)

        // Then, warm and one at a time: `app` (the plain one) with shards: auto, where its 12 s recorded are
        // worth two parts and one executor of the two is idle; `sharded` with fail-fast, where
        // the first failure stops the other shard too.
        try repo.git("branch", "next")
        try served.home.write(
            "Bots/app.yml", "repository: {url: '\(repo.url)', branch: next}\nschedule: {poll: 0}\ntest: {order: as-written, shards: auto}\n")
        try served.home.write(
            "Bots/sharded.yml",
            "repository: {url: '\(repo.url)', branch: next}\nschedule: {poll: 0}\ntest: {order: as-written, shards: 2, fail-fast: true}\n")
        try await served.eventually("the bots read again", timeout: .seconds(10)) {
            let listed = try await runProcess(Executables.kiln, ["status", "--json"], in: served.home.path)
            let bots = try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]] ?? []
            return bots.filter { $0["branch"] as? String == "next" }.count == 2
        }
        for bot in ["app", "sharded"] {
            #expect(try await runProcess(Executables.kiln, ["trigger", bot], in: served.home.path).status == 0)
            try await served.eventually("\(bot) #2", timeout: .seconds(120)) {
                try await served.integrations(bot).contains { $0.number == 2 && $0.step == .completed }
            }
        }
        let auto = try #require(try await store.integration(bot: "app", number: 2))
        #expect(results(auto) == results(plain), "\(results(auto))")
        let autoLog = try String(contentsOfFile: served.home.url(".kiln/logs/app/2.log"), encoding: .utf8)
        #expect(autoLog.contains("2 shards at once: on this executor and 1 idle executor of this host"), "\(autoLog)")
        #expect(try Self.shards(try await PullRequestTests.get("/api/bots/app/integrations/2", port: port)).count == 2)

        let stopped = try #require(try await store.integration(bot: "sharded", number: 2))
        #expect(stopped.integration.result == .testFailures && stopped.tests.count == 8, "each test once: \(results(stopped))")
        #expect(stopped.tests.contains { $0.status == .failed }, "\(results(stopped))")
        let stoppedLog = try String(contentsOfFile: served.home.url(".kiln/logs/sharded/2.log"), encoding: .utf8)
        // each shard's process stopped, not only the one whose test failed
        #expect(stoppedLog.components(separatedBy: "those it did not reach are not run").count - 1 == 2, "\(stoppedLog)")
        #expect(stopped.tests.filter { $0.status == .notRun }.count >= 2, "\(results(stopped))")
    }

    /// The JSON `shards` of an integration.
    static func shards(_ json: String) throws -> [[String: Any]] {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        return try #require(object?["shards"] as? [[String: Any]], "\(json)")
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
