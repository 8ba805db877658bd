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
import KilnTestSupport
import Testing

@testable import KilnStore

/// Claims, hosts, leases and logs: what keeps several hosts on one database honest.
@Suite("Hosts and claims")
struct HostTests {
    @Test("A claim that was lost refuses every later write, and its holder hears it must stop", arguments: Engine.allCases)
    func lostClaimRefusesWrites(engine: Engine) async throws {
        let test = try await TestStore(engine)
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .webhook, commit: "c1", branch: "main"), now: test.at(0))
        let claim = try #require(try await test.store.claimNext(owner: "build-1 1 1", now: test.at(1)))
        #expect(claim.host == "build-1")
        try await test.store.advance(claim, to: .building, now: test.at(2))
        #expect(try await test.store.stopRequests(for: [claim]).isEmpty)

        // Another process ends it (its owner taken as gone).
        let recovered = try await test.store.recoverAbandoned(isAlive: { _ in false }, now: test.at(3))
        #expect(recovered.map(\.number) == [1])

        let stops = try await test.store.stopRequests(for: [claim])
        #expect(stops.map(\.id) == [claim.id])
        #expect(stops.first?.lost != nil && stops.first?.reason == nil, "lost, with no reason to end with")
        await #expect(throws: StoreError.self) { try await test.store.advance(claim, to: .testing, now: test.at(4)) }
        await #expect(throws: StoreError.self) { try await test.store.setCommit(claim, commit: "c9") }
        do {
            try await test.store.complete(claim, outcome: IntegrationOutcome(result: .succeeded), now: test.at(5))
            Issue.record("a late completion was accepted")
        } catch {
            guard case .claimLost = error else { throw error }
        }
        let stored = try #require(try await test.store.integration(bot: "app", number: 1))
        #expect(stored.integration.result == .internalError, "the late result did not overwrite the recovery")
        #expect(stored.integration.commit == "c1")
    }

    @Test("Heartbeats list hosts; a report from kiln run keeps a server's figures", arguments: Engine.allCases)
    func heartbeats(engine: Engine) async throws {
        let test = try await TestStore(engine)
        try await test.store.heartbeat(HostReport(name: "build-1", version: "1.0", executors: 4, busy: 1, botsDigest: "abc", lease: .seconds(3600)))
        try await test.store.heartbeat(.foreground(name: "build-1", lease: .seconds(3600)))
        try await test.store.heartbeat(HostReport(name: "build-2", version: "1.0", executors: 2, busy: 0, botsDigest: "abd", lease: .seconds(3600)))
        let hosts = try await test.store.hosts()
        #expect(hosts.map(\.name) == ["build-1", "build-2"], "\(engine)")
        #expect(hosts.first?.executors == 4 && hosts.first?.busy == 1 && hosts.first?.botsDigest == "abc", "\(engine)")
        // On the database's clock, which is this machine's: a loaded test machine may take a while.
        #expect(hosts.allSatisfy { !$0.gone && abs($0.lastHeard.timeIntervalSinceNow) < 600 }, "\(engine): \(hosts)")
        try await test.store.heartbeat(.foreground(name: "laptop", lease: .seconds(3600)))
        #expect(
            try await test.store.hosts().contains { $0.name == "laptop" } == (engine == .postgres),
            "kiln run is a host for the others only where there are others: \(engine)")
    }

    @Test(
        "A host whose lease ran out: another ends its integration naming it, queues the commit again once; on SQLite its process decides",
        arguments: Engine.allCases)
    func lostHostRecovery(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let other = try await test.another()
        try await test.store.heartbeat(HostReport(name: "build-1", version: "1", executors: 1, busy: 1, botsDigest: "", lease: .milliseconds(1500)))
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .webhook, commit: "c1", branch: "main"), now: test.at(0))
        let claim = try #require(try await test.store.claimNext(owner: "build-1 10 10", now: test.at(1)))
        try await test.store.advance(claim, to: .building, now: test.at(2))

        try await other.heartbeat(HostReport(name: "build-2", version: "1", executors: 1, busy: 0, botsDigest: "", lease: .seconds(30)))
        try await test.store.heartbeat(HostReport(name: "build-1", version: "1", executors: 1, busy: 1, botsDigest: "", lease: .seconds(4)))
        #expect(try await other.recoverLostHosts(now: test.at(3)).isEmpty, "within its lease a host keeps its work")
        try await test.store.heartbeat(HostReport(name: "build-1", version: "1", executors: 1, busy: 1, botsDigest: "", lease: .milliseconds(100)))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await other.hosts().first { $0.name == "build-1" }?.gone == true)
        guard engine == .postgres else {
            // One SQLite file serves one host: a silent lease ends nothing, only a gone process does.
            #expect(try await other.recoverLostHosts(now: test.at(4)).isEmpty)
            #expect(try await other.integration(bot: "app", number: 1)?.integration.step == .building)
            return
        }
        let recovered = try await other.recoverLostHosts(now: test.at(4))
        #expect(recovered.map(\.number) == [1])
        #expect(recovered.first?.result == .internalError)
        guard case .hostLost(let host, let heard, .building)? = recovered.first?.reason else {
            Issue.record("ended for another reason: \(String(describing: recovered.first?.reason))")
            return
        }
        #expect(host == "build-1" && heard != nil, "the lost host and when it was last heard")
        #expect(try await other.recoverLostHosts(now: test.at(5)).isEmpty, "recovered once")
        #expect(try await test.store.logSize(bot: "app", number: 1) ?? 0 > 0, "the reason is in the log")

        // The commit is queued again, and runs; lost again, it is not queued a third time.
        let again = try #require(try await other.claimNext(owner: "build-1 11 11", now: test.at(6)))
        #expect(again.number == 2 && again.commit == "c1" && again.cause == .webhook)
        try await test.store.heartbeat(HostReport(name: "build-1", version: "1", executors: 1, busy: 1, botsDigest: "", lease: .milliseconds(100)))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await other.recoverLostHosts(now: test.at(7)).map(\.number) == [2])
        #expect(try await other.claimNext(owner: "build-2 1 1", now: test.at(8)) == nil)
        await #expect(throws: StoreError.self) { try await test.store.advance(claim, to: .testing, now: test.at(9)) }
    }

    @Test("A host gone for a day is forgotten; one gone for an hour is still listed as gone", arguments: Engine.allCases)
    func goneHostsAreForgotten(engine: Engine) async throws {
        let test = try await TestStore(engine)
        for host in ["retired", "down", "alive"] {
            try await test.store.heartbeat(HostReport(name: host, version: "1", executors: 1, busy: 0, botsDigest: "", lease: .seconds(30)))
        }
        // Heartbeats are on the database's clock: the hosts fell silent that long ago.
        try await test.execute("UPDATE host SET last_heard = last_heard - ? WHERE name = 'retired'", 25 * 3600.0)
        try await test.execute("UPDATE host SET last_heard = last_heard - ? WHERE name = 'down'", 3600.0)
        _ = try await test.store.recoverLostHosts(now: Date())
        let hosts = try await test.store.hosts()
        #expect(hosts.map(\.name) == ["alive", "down"])
        #expect(hosts.map(\.gone) == [false, true])
    }

    @Test("A lease has one holder until it runs out", arguments: Engine.allCases)
    func leases(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let other = try await test.another()
        #expect(try await test.store.holdLease("schedule", holder: "a", for: .seconds(60)))
        #expect(try await other.holdLease("schedule", holder: "b", for: .seconds(60)) == false)
        #expect(try await test.store.holdLease("schedule", holder: "a", for: .milliseconds(200)), "the holder renews")
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await other.holdLease("schedule", holder: "b", for: .seconds(30)))
        #expect(try await test.store.holdLease("schedule", holder: "a", for: .seconds(30)) == false)
    }

    @Test(
        "A log reads back at any offset, from any process (on PostgreSQL from any host), and stops at a lost claim",
        arguments: Engine.allCases)
    func logs(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let other = try await test.another()
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: test.at(0))
        let claim = try #require(try await test.store.claimNext(owner: "build-1 1 1", now: test.at(1)))
        let text = (0..<2000).map { "line \($0) of the build\n" }.joined()
        guard let sink = test.store.logSink(for: claim) else {
            // SQLite's logs are the files the build writes.
            #expect(engine == .sqlite)
            let path = try #require(test.store.logLocation(bot: "app", number: 1))
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(try await other.logSize(bot: "app", number: 1) == text.utf8.count)
            var read: [UInt8] = []
            while let chunk = try await other.readLog(bot: "app", number: 1, from: read.count, limit: 777), !chunk.isEmpty { read += chunk }
            #expect(String(decoding: read, as: UTF8.self) == text)
            return
        }
        for (line, piece) in text.split(separator: "\n").enumerated() {
            sink.write(Array((piece + "\n").utf8))
            if line % 500 == 0 { try await Task.sleep(for: .milliseconds(30)) }
        }
        await sink.close()
        #expect(try await other.logSize(bot: "app", number: 1) == text.utf8.count)
        var read: [UInt8] = []
        while let chunk = try await other.readLog(bot: "app", number: 1, from: read.count, limit: 777), !chunk.isEmpty { read += chunk }
        #expect(String(decoding: read, as: UTF8.self) == text)

        _ = try await test.store.recoverAbandoned(isAlive: { _ in false }, now: test.at(2))
        let size = try #require(try await other.logSize(bot: "app", number: 1))
        let late = try #require(test.store.logSink(for: claim))
        late.write(Array("written after the claim was lost\n".utf8))
        await late.close()
        #expect(try await other.logSize(bot: "app", number: 1) == size, "a lost claim's log writes are dropped")
    }

    @Test("On PostgreSQL a log's chunks wake the hosts where someone follows a log, and only once one does")
    func logFollowers() async throws {
        let test = try await TestStore(.postgres)
        let writer = try #require(test.store as? PostgresStore)
        let follower = try await test.another()
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: test.at(0))
        let claim = try #require(try await test.store.claimNext(owner: "build-1 1 1", now: test.at(1)))
        let sink = try #require(test.store.logSink(for: claim))
        sink.write(Array("followed by nobody\n".utf8))
        try await Task.sleep(for: .milliseconds(300))
        #expect(!writer.engine.logsFollowed, "no host follows a log: the writer notifies nobody of its chunks")

        let wakes = WakeCount()
        let changes = follower.logChanges()
        let counting = Task {
            for await _ in changes { await wakes.add() }
        }
        defer { counting.cancel() }
        // Listening begins with a wake of its own (a chunk may have landed before it).
        while await wakes.count == 0 { try await Task.sleep(for: .milliseconds(20)) }
        let deadline = ContinuousClock.now + .seconds(10)
        while !writer.engine.logsFollowed, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(writer.engine.logsFollowed, "the writer heard within 10 s that a host follows a log")
        let before = await wakes.count
        sink.write(Array("followed\n".utf8))
        while await wakes.count == before, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await wakes.count > before, "a chunk written after the writer heard of the follower wakes it")
        await sink.close()
    }

    actor WakeCount {
        private(set) var count = 0
        func add() { count += 1 }
    }

    @Test("On PostgreSQL a log whose integration's row is busy waits for it, and the other logs of its host are not held up")
    func busyLogs() async throws {
        let test = try await TestStore(.postgres)
        for bot in ["busy", "free"] { _ = try await test.store.enqueue(QueueRequest(bot: bot, cause: .manual, branch: "main"), now: test.at(0)) }
        let busy = try #require(try await test.store.claimNext(owner: "build-1 1 1", now: test.at(1)))
        let free = try #require(try await test.store.claimNext(owner: "build-1 1 1", now: test.at(1)))
        #expect(busy.bot == "busy" && free.bot == "free")
        // Another session holds the busy integration's row, as a step being recorded does.
        let holding = "SELECT pg_sleep(60) /* busy log */"
        async let holder = PostgresServer.shared.query(
            "BEGIN; SELECT id FROM integration WHERE id = \(busy.id) FOR UPDATE; \(holding); COMMIT;", database: test.location)
        let active = "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%busy log */%' AND state = 'active' AND pid <> pg_backend_pid()"
        while try await PostgresServer.shared.query(active, database: test.location).first != "1" { try await Task.sleep(for: .milliseconds(20)) }

        let (busyLog, freeLog) = (try #require(test.store.logSink(for: busy)), try #require(test.store.logSink(for: free)))
        busyLog.write(Array("the busy one's line\n".utf8))
        freeLog.write(Array("the free one's line\n".utf8))
        let closed = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await freeLog.close()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
        #expect(closed, "the free integration's log waited for the busy one's row")
        #expect(try await test.log("free", 1) == "the free one's line\n")
        #expect(try await test.log("busy", 1).isEmpty, "the busy one's chunk waits while its row is held")

        _ = try await PostgresServer.shared.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%busy log */%' AND pid <> pg_backend_pid()",
            database: test.location)
        _ = try? await holder
        await busyLog.close()
        #expect(try await test.log("busy", 1) == "the busy one's line\n", "and lands once it is free, not taken for lost")
    }

    @Test("Of two senders claiming due mail at once, each mail goes to one", arguments: Engine.allCases)
    func mailClaims(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let other = try await test.another()
        for index in 0..<40 {
            try await test.store.queueMail(
                OutgoingMail(dedupeKey: "m\(index)", recipients: ["a@example.com"], subject: "s", message: Array("m".utf8)), now: test.at(0))
        }
        async let first = test.store.dueMails(now: test.at(1), limit: 25)
        async let second = other.dueMails(now: test.at(1), limit: 25)
        let (a, b) = try await (first, second)
        #expect(Set(a.map(\.id)).isDisjoint(with: b.map(\.id)))
        #expect(a.count + b.count == 40)
        #expect(try await test.store.dueMails(now: test.at(2), limit: 100).isEmpty, "claimed mail is not due again at once")
        #expect(try await test.store.dueMails(now: test.at(2 + MailClaim.duration), limit: 100).count == 40, "unsent, it is due again later")
    }
}
