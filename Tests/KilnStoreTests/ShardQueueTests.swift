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

@Suite("Test shards offered to every host of the database")
struct ShardQueueTests {
    static func job(_ integration: Integration, part: Int, tests: [TestCase]) -> ShardJob {
        let snapshot = WorkspaceSnapshot(
            bot: integration.bot, cell: "branch", host: "build-1", number: integration.number, commit: "abc", swiftVersion: "Swift 6.3",
            seenAs: "/tmp/kiln/workspace/app", bytes: 1024, sha256: "00ff", createdAt: Date(timeIntervalSince1970: 1_800_000_000))
        return ShardJob(
            integrationID: integration.id, bot: integration.bot, number: integration.number, part: part, parts: 3, tests: tests, snapshot: snapshot)
    }

    @Test(
        "Hosts claim each offered part once; a part whose host went silent is claimed again and the silent host's late outcome refused; an ended integration's parts are claimed by none",
        arguments: Engine.allCases)
    func claims(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        for host in ["build-1", "build-2", "build-3"] {
            try await store.heartbeat(
                HostReport(name: host, version: "1", executors: 2, busy: 0, botsDigest: "", lease: .seconds(30), address: "http://127.0.0.1:9"))
        }
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: test.at(0))
        let claim = try #require(try await store.claimNext(owner: "build-1 1", now: test.at(1)))
        #expect(try await store.idleExecutors(elsewhereThan: "build-1") == 4, "build-2's two and build-3's two")
        #expect(try await store.idleExecutors(elsewhereThan: "build-2") == 3, "build-1 runs the integration")
        let jobs = (1...3).map {
            Self.job(claim.integration, part: $0, tests: [TestCase(suite: "AppTests", name: "testPart\($0)", status: .notRun, duration: 0)])
        }
        try await store.offerShards(jobs, now: test.at(2))

        #expect(
            try await store.claimShard(host: "build-2", bots: ["other"], of: nil, now: test.at(3)) == nil, "a host claims only its own bots' parts")
        let first = try #require(try await store.claimShard(host: "build-2", bots: ["app"], of: nil, now: test.at(3)))
        let second = try #require(try await store.claimShard(host: "build-2", bots: ["app"], of: nil, now: test.at(3)))
        let third = try #require(try await store.claimShard(host: "build-3", bots: ["app", "other"], of: nil, now: test.at(3)))
        #expect([first, second, third].map(\.job) == jobs, "each part once, in order")
        #expect([first, second, third].map(\.attempts) == [1, 1, 1])
        #expect(try await store.claimShard(host: "build-1", bots: ["app"], of: nil, now: test.at(3)) == nil, "every part is held")
        #expect(try await store.idleExecutors(elsewhereThan: "build-1") == 1, "build-2 holds two parts, build-3 one")

        let run = ShardRun(index: 1, host: "build-2", tests: 1, duration: 2.5, workspace: .snapshot)
        let passed = ShardOutcome(tests: [TestCase(suite: "AppTests", name: "testPart1", status: .passed, duration: 2.4)], run: run)
        #expect(try await store.completeShard(integrationID: claim.id, part: 1, host: "build-2", outcome: passed))
        #expect(try await !store.completeShard(integrationID: claim.id, part: 2, host: "build-3", outcome: passed), "not build-3's part")

        // build-2 goes silent: its part 2 is free again, claimed by build-3, and build-2's late
        // outcome no longer counts.
        try await test.execute("UPDATE host SET last_heard = last_heard - ? WHERE name = 'build-2'", 3600.0)
        let taken = try #require(try await store.claimShard(host: "build-3", bots: ["app"], of: nil, now: test.at(40)))
        #expect(taken.job.part == 2 && taken.attempts == 2 && taken.claimedBy == "build-3")
        // build-3 cannot run it and gives it back; the integration's own host takes it, by its id.
        try await store.releaseShard(integrationID: claim.id, part: 2, host: "build-3")
        #expect(try await store.claimShard(host: "build-1", bots: ["app"], of: claim.id + 1, now: test.at(41)) == nil, "another integration's")
        let again = try #require(try await store.claimShard(host: "build-1", bots: ["app"], of: claim.id, now: test.at(41)))
        #expect(again.job.part == 2 && again.attempts == 3 && again.claimedBy == "build-1")
        #expect(try await !store.completeShard(integrationID: claim.id, part: 2, host: "build-2", outcome: passed))
        #expect(try await !store.completeShard(integrationID: claim.id, part: 2, host: "build-3", outcome: passed), "given back")
        #expect(try await store.completeShard(integrationID: claim.id, part: 2, host: "build-1", outcome: passed))

        let states = try await store.shards(of: claim.id)
        #expect(states.map(\.job.part) == [1, 2, 3])
        #expect(states.map { $0.outcome != nil } == [true, true, false])
        #expect(states[0].outcome == passed && states[0].outcome?.run.workspace == .snapshot)
        #expect(states.map(\.claimedBy) == ["build-2", "build-1", "build-3"])

        // The integration ends (its host took part 3 back, say, and finished): nobody claims it.
        try await test.execute("UPDATE host SET last_heard = last_heard - ? WHERE name = 'build-3'", 3600.0)
        try await store.complete(claim, outcome: IntegrationOutcome(result: .succeeded), now: test.at(50))
        #expect(try await store.claimShard(host: "build-1", bots: ["app"], of: nil, now: test.at(51)) == nil, "its integration has ended")
        try await store.withdrawShards(of: claim.id)
        #expect(try await store.shards(of: claim.id).isEmpty)
    }
}
