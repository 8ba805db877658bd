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

/// `test.shards` across the hosts of one PostgreSQL database: a part no executor of the
/// integration's host is idle for runs on another host's, from a pack of the built workspace.
@Suite("Shards on other hosts: from a pack of the built workspace, again elsewhere when a host dies")
struct ShardHostsTests {
    /// A `kiln serve` named `name` on the database at `url`, its bots' first build warm from the
    /// run's shared build of the fixture (`FixtureSeed`).
    static func serve(_ name: String, url: String, bots: [String: String]) async throws -> ServedHome {
        let home = try TemporaryDirectory()
        try home.write("kiln.yml", "executors: 1\ndatabase: {url: '\(url)'}\nhost: \(name)\nhost-lease: 4s\n")
        for (bot, text) in bots { try home.write("Bots/\(bot).yml", text) }
        try await FixtureSeed.shared.install(bot: "app", into: home.url(".kiln"))
        let served = ServedHome(home: home, server: try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path))
        _ = try await served.server.waitForPort()
        return served
    }

    /// `tests` as "Suite.name status", sorted.
    static func results(_ tests: [TestCase]) -> [String] { tests.map { "\($0.suite).\($0.name) \($0.status.rawValue)" }.sorted() }

    @Test(
        "Two hosts of one executor each: shards: 2 runs one part on each (the other host's from the pack, no second build), each test once; the other host stopped by SIGKILL mid-part, its part runs again on the integration's host; shards: auto counts the other host's idle executor; canceled, the other host's part stops too"
    )
    func twoHosts() async throws {
        let url = try await PostgresServer.shared.database()
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit(
            "Slow tests, one failing",
            files: ["Tests/LibTests/SlowTests.swift": ShardTests.slowTests, "Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: true)])
        let bots = ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {shards: 2, order: as-written}\n"]
        var hosts = [
            "build-1": try await Self.serve("build-1", url: url, bots: bots), "build-2": try await Self.serve("build-2", url: url, bots: bots),
        ]
        defer { for host in hosts.values { host.server.sigkill() } }
        let homes = hosts.mapValues(\.home)
        let store = try await PostgresStore.open(DatabaseSettings(url: url), logsDirectory: nil)
        defer { store.close() }
        let first = try #require(hosts["build-1"])
        try await first.eventually("both hosts serve") { try await store.hosts().filter { $0.address != nil }.count == 2 }

        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: first.home.path).status == 0)
        try await first.eventually("integration #1", timeout: .seconds(240)) {
            try await store.integration(bot: "app", number: 1)?.integration.step == .completed
        }
        let one = try #require(try await store.integration(bot: "app", number: 1))
        let log = String(decoding: try await store.readLog(bot: "app", number: 1, from: 0, limit: 1 << 22) ?? [], as: UTF8.self)
        let origin = try #require(one.integration.host)
        let other = origin == "build-1" ? "build-2" : "build-1"
        #expect(one.tests.count == 8 && Set(one.tests.map(\.key)).count == 8, "each test once: \(Self.results(one.tests))\n\(log)")
        #expect(Self.results(one.tests).filter { $0.hasSuffix(" failed") } == ["MathTests.testMaybeFails failed"], "\(Self.results(one.tests))")
        #expect(one.tests.filter { $0.suite == "SlowTests" && $0.status == .passed }.count == 4)
        #expect(one.integration.result == .testFailures && one.integration.summary?.tests == 8)
        #expect(one.integration.progress == TestProgress(tests: 8, failed: 1), "the other host's part counted as it came back")
        #expect(log.contains("2 shards at once: on this executor and 0 idle executors of this host, and 1 idle executor of other hosts"), "\(log)")
        #expect(log.contains("shard 2 of 2 offered to other hosts, with the built workspace packed ("), "\(log)")
        #expect(log.contains("shard 2 of 2 ran on \(other): 4 tests in "), "\(log)")
        #expect(log.contains("\(origin)'s pack of the build unpacked"), "\(log)")
        let runs = one.integration.shards
        #expect(runs.map(\.host) == [origin, other] && runs.map(\.workspace) == [.integration, .snapshot], "\(runs)")
        // No second build: the other host never ran swift build for it (its log would say so).
        let otherHome = try #require(hosts[other]).home
        let otherLogs = FileManager.default.enumerator(atPath: otherHome.url(".kiln/bisect"))?.compactMap { $0 as? String } ?? []
        #expect(otherLogs.contains { $0.hasSuffix(".log") }, "the part's log on \(other): \(otherLogs)")
        for file in otherLogs where file.hasSuffix(".log") {
            let text = (try? String(contentsOfFile: otherHome.url(".kiln/bisect/\(file)"), encoding: .utf8)) ?? ""
            #expect(!text.contains("swift build"), "\(file): \(text)")
        }
        #expect(try await store.shards(of: one.integration.id).isEmpty, "withdrawn at the step's end")

        // Again, a new commit: the host that takes the part is stopped (SIGKILL) while it holds it; once its
        // lease runs out the integration's own host runs it. None lost, none counted twice.
        try repo.commit("Words", files: ["README.md": "slow\n"])
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: first.home.path).status == 0)
        var taken: (host: String, origin: String)?
        try await first.eventually("a part taken by the other host", timeout: .seconds(120)) {
            guard let running = try await store.integration(bot: "app", number: 2)?.integration, let host = running.host else { return false }
            let held = try await store.shards(of: running.id).first { $0.claimedBy != nil && $0.claimedBy != host && $0.outcome == nil }
            taken = held.map { ($0.claimedBy ?? "", host) }
            return taken != nil
        }
        let (victim, integrationHost) = try #require(taken)
        try #require(hosts[victim]).server.sigkill()
        hosts[victim] = nil
        let survivor = try #require(hosts[integrationHost])
        try await survivor.eventually("integration #2", timeout: .seconds(120)) {
            try await store.integration(bot: "app", number: 2)?.integration.step == .completed
        }
        let two = try #require(try await store.integration(bot: "app", number: 2))
        let again = String(decoding: try await store.readLog(bot: "app", number: 2, from: 0, limit: 1 << 22) ?? [], as: UTF8.self)
        #expect(Self.results(two.tests) == Self.results(one.tests), "the same results, each test once\n\(again)")
        #expect(again.contains("shard 2 of 2 runs here: the host that took it went silent"), "\(again)")
        #expect(two.integration.shards.map(\.host) == [integrationHost, integrationHost], "\(two.integration.shards)")

        // Back, with shards: auto: the 12 s recorded are worth two parts, and auto counts the
        // other host's idle executor.
        for home in homes.values {
            try home.write("Bots/app.yml", bots["app", default: ""].replacingOccurrences(of: "shards: 2", with: "shards: auto"))
        }
        let home = try #require(homes[victim])
        hosts[victim] = ServedHome(home: home, server: try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path))
        try await survivor.eventually("both hosts serve the same bots") {
            let live = try await store.hosts().filter { !$0.gone && $0.address != nil }
            return live.count == 2 && Set(live.map(\.botsDigest)).count == 1
        }
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: survivor.home.path).status == 0)
        try await survivor.eventually("integration #3", timeout: .seconds(120)) {
            try await store.integration(bot: "app", number: 3)?.integration.step == .completed
        }
        let three = try #require(try await store.integration(bot: "app", number: 3))
        let auto = String(decoding: try await store.readLog(bot: "app", number: 3, from: 0, limit: 1 << 22) ?? [], as: UTF8.self)
        #expect(auto.contains("2 shards at once: on this executor and 0 idle executors of this host, and 1 idle executor of other hosts"), "\(auto)")
        #expect(Set(three.integration.shards.map(\.host)).count == 2 && Self.results(three.tests) == Self.results(one.tests), "\(auto)")
        // The other host's part counted as it came back, before the step ended.
        #expect(three.integration.progress == TestProgress(tests: 8, failed: 1), "\(String(describing: three.integration.progress))\n\(auto)")

        // Canceled while the other host runs its part, slow now (30 s a test): that part stops too,
        // within seconds, and frees its executor; nothing of it is recorded.
        try repo.commit("Slower", files: ["Tests/LibTests/SlowTests.swift": ShardTests.slowTests.replacingOccurrences(of: "3)", with: "30)")])
        for home in homes.values { try? FileManager.default.removeItem(atPath: home.url(".kiln/bisect/app")) }
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: survivor.home.path).status == 0)
        var remote: (host: String, log: String)?
        try await survivor.eventually("the other host's part to start its tests", timeout: .seconds(120)) {
            guard let running = try await store.integration(bot: "app", number: 4)?.integration, let host = running.host,
                let held = try await store.shards(of: running.id).first(where: { $0.claimedBy != nil && $0.claimedBy != host }),
                let name = held.claimedBy, let home = homes[name]
            else { return false }
            // its one executor runs it in the first shard slot
            let log = home.url(".kiln/bisect/app/10000.log")
            remote = (name, log)
            return ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("Test Suite 'Selected tests' started")
        }
        let (busyHost, partLog) = try #require(remote)
        _ = try await store.cancel(bot: "app", number: 4, reason: .canceledFromWeb(token: nil), now: Date())
        try await survivor.eventually("integration #4 canceled", timeout: .seconds(30)) {
            try await store.integration(bot: "app", number: 4)?.integration.result == .canceled
        }
        try await survivor.eventually("the other host's executor free again", timeout: .seconds(20)) {
            try await store.hosts().first { $0.name == busyHost }?.busy == 0
        }
        let stopped = (try? String(contentsOfFile: partLog, encoding: .utf8)) ?? ""
        #expect(!stopped.contains("Test Suite 'Selected tests' passed") && !stopped.contains("Test Suite 'Selected tests' failed"), "\(stopped)")
    }
}
