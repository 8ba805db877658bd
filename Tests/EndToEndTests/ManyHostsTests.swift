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
import KilnPresentation
import KilnStore
import KilnTestSupport
import Synchronization
import Testing

/// Many real `kiln serve` hosts on the tests' PostgreSQL server (on 127.0.0.1: these tests cut no
/// links), each with its own home and data directory.
@Suite("Many hosts on one PostgreSQL database", .serialized)
struct ManyHostsTests {
    struct Host {
        let name: String
        let home: TemporaryDirectory
        let server: ServerProcess

        init(_ name: String, database: String, bots: [String: String], executors: Int, lease: String) async throws {
            self.name = name
            home = try TemporaryDirectory()
            try home.write("kiln.yml", "executors: \(executors)\ndatabase: {url: '\(database)'}\nhost: \(name)\nhost-lease: \(lease)\n")
            for (bot, text) in bots { try home.write("Bots/\(bot).yml", text) }
            server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
            _ = try await server.waitForPort(timeout: .seconds(60))
        }
    }

    /// Set once, read from other tasks.
    final class Flag: Sendable {
        private let state = Mutex(false)
        func set() { state.withLock { $0 = true } }
        var isSet: Bool { state.withLock { $0 } }
    }

    /// Starts `count` hosts at once.
    static func hosts(_ count: Int, database: String, bots: [String: String], executors: Int, lease: String) async throws -> [Host] {
        try await withThrowingTaskGroup(of: Host.self) { group in
            for index in 1...count {
                group.addTask { try await Host("h\(index)", database: database, bots: bots, executors: executors, lease: lease) }
            }
            return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.name < $1.name }
        }
    }

    /// Connections to `database` now, from anyone.
    static func connections(to database: String) async throws -> Int {
        let name = String(database.split(separator: "/").last?.split(separator: "?").first ?? "")
        return Int(
            try await PostgresServer.shared.query(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()", database: database
            ).first ?? "") ?? -1
    }

    @Test("Thirty hosts started at once on PostgreSQL's default 100 connections: none is refused a connection, none logs a refusal")
    func thirtyHostsStart() async throws {
        let postgres = try PostgresServer.start(maxConnections: 100)
        defer { postgres.stop() }
        let database = try await postgres.database("crowd")
        let repo = try ServerTests.quickRepository()
        let bot = "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
        /// Connections to the database now; 100 when it refuses even the test's own (it is full).
        func connections() async throws -> Int {
            do {
                return Int(try await postgres.query("SELECT count(*) FROM pg_stat_activity WHERE datname = 'crowd'").first ?? "") ?? -1
            } catch {
                return "\(error)".contains("too many clients") || "\(error)".contains("remaining connection slots") ? 100 : -1
            }
        }
        // The most connections seen from the first start until the hosts have taken their shares.
        let (hosts, highest) = try await withThrowingTaskGroup(of: ([Host], Int).self) { group in
            let started = Flag()
            group.addTask { (try await Self.hosts(30, database: database, bots: ["app": bot], executors: 1, lease: "10s"), 0) }
            group.addTask {
                var highest = 0
                var settledAt: ContinuousClock.Instant?
                while settledAt.map({ ContinuousClock.now < $0 + .seconds(12) }) ?? true {
                    highest = max(highest, try await connections())
                    if settledAt == nil, started.isSet { settledAt = .now }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return ([], highest)
            }
            var hosts: [Host] = []
            var highest = 0
            for try await (some, seen) in group {
                if !some.isEmpty {
                    hosts = some
                    started.set()
                }
                highest = max(highest, seen)
            }
            return (hosts, highest)
        }
        #expect(hosts.count == 30)
        // 100, less 3 reserved for superusers and a headroom of 10 for the command line.
        #expect(highest <= 87, "the hosts held \(highest) of the database's 100 connections as they started (100: it refused the test's own)")
        var refusals: [String] = []
        for host in hosts {
            let output = try await host.server.terminate()
            let said = output.standardOutput + output.standardError
            for line in said.split(separator: "\n") where line.contains("too many clients") || line.contains("remaining connection slots") {
                refusals.append("\(host.name): \(line)")
            }
        }
        #expect(refusals.isEmpty, "\(refusals.count) refusals logged:\n\(refusals.prefix(10).joined(separator: "\n"))")
        print("30 hosts started at once: at most \(highest) connections held")
    }

    @Test(
        "Twelve hosts drain 216 integrations, 48 of them queued by kiln trigger eight at a time: none is lost or run twice, and connections stay within the budget"
    )
    func twelveHosts() async throws {
        let database = try await PostgresServer.shared.database()
        let repo = try ServerTests.quickRepository()
        // Each waits in a before trigger, then fails it: no build, so that the test is coordination.
        let bot =
            "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers: [{name: wait, phase: before, run: 'sleep 1; exit 1'}]\n"
        let names = (1...216).map { "bot\($0)" }
        let hosts = try await Self.hosts(
            12, database: database, bots: Dictionary(uniqueKeysWithValues: names.map { ($0, bot) }), executors: 3, lease: "4s")
        let store = try await PostgresStore.open(DatabaseSettings(url: database))
        let idle = try await Self.connections(to: database)
        #expect(idle <= 12 * PostgresEngine.defaultConnections + 1, "idle hosts hold \(idle) connections")

        let home = hosts[0].home.path
        // The most connections seen while the hosts drain.
        let highest = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for name in names.dropFirst(48) { _ = try await store.enqueue(QueueRequest(bot: name, cause: .manual, branch: "main"), now: Date()) }
                return 0
            }
            // kiln trigger, eight at a time, while the hosts claim.
            for slice in stride(from: 0, to: 48, by: 8) {
                group.addTask {
                    for name in names[slice..<slice + 8] {
                        let trigger = try await runProcess(Executables.kiln, ["trigger", name], in: home)
                        #expect(trigger.status == 0, "kiln trigger \(name): \(trigger.standardError)")
                    }
                    return 0
                }
            }
            group.addTask {
                var highest = 0
                try await eventually("every integration to end", timeout: .seconds(240)) {
                    highest = max(highest, try await Self.connections(to: database))
                    return try await store.botOverviews().allSatisfy { $0.last != nil && $0.running.isEmpty && $0.queued.isEmpty }
                }
                return highest
            }
            return try await group.reduce(0, max)
        }
        let budget = 12 * PostgresEngine.defaultConnections + 8 + 1
        #expect(highest <= budget, "at most \(budget) connections (12 hosts × 4, 8 kiln trigger, the test's): \(highest)")
        var ranOn: Set<String> = []
        for name in names {
            let integrations = try await store.integrations(bot: name, limit: 10, before: nil)
            #expect(integrations.count == 1, "\(name) integrated once: \(integrations.map { "#\($0.number) \($0.result?.rawValue ?? "")" })")
            #expect(integrations.allSatisfy { $0.result != .internalError }, "\(name): \(integrations.compactMap(\.reason))")
            ranOn.formUnion(integrations.compactMap(\.host))
        }
        #expect(ranOn.count >= 10, "the hosts shared the work: \(ranOn.sorted())")
        for host in hosts { _ = try await host.server.terminate() }
    }

    @Test("Three hosts whose every core is busy for three leases are not taken as gone; one stopped with SIGKILL is recovered within the lease")
    func busyHosts() async throws {
        let database = try await PostgresServer.shared.database()
        let repo = try ServerTests.quickRepository()
        // Two busy loops per integration, two integrations per host: six times this machine's cores.
        let spin = "timeout 9 sh -c 'while :; do :; done'"
        let busy =
            "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers: [{name: spin, phase: before, run: \"\(spin) & \(spin); wait\"}]\n"
        let stall =
            "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers: [{name: stall, phase: before, run: 'sleep 120'}]\n"
        var bots = ["stall": stall]
        for index in 1...6 { bots["busy\(index)"] = busy }
        let hosts = try await Self.hosts(3, database: database, bots: bots, executors: 2, lease: "3s")
        let store = try await PostgresStore.open(DatabaseSettings(url: database))
        for index in 1...6 { _ = try await store.enqueue(QueueRequest(bot: "busy\(index)", cause: .manual, branch: "main"), now: Date()) }
        try await eventually("the busy integrations to end", timeout: .seconds(60)) {
            try await store.botOverviews().filter { $0.state.name.hasPrefix("busy") }.allSatisfy {
                $0.last != nil && $0.running.isEmpty && $0.queued.isEmpty
            }
        }
        for index in 1...6 {
            let integrations = try await store.integrations(bot: "busy\(index)", limit: 10, before: nil)
            #expect(
                integrations.count == 1 && integrations.first?.result == .buildErrors,
                "busy\(index): \(integrations.map { "\($0.result?.rawValue ?? "") \($0.reason?.sentence ?? "")" })")
        }
        #expect(try await store.hosts().allSatisfy { !$0.gone }, "no host was taken as gone")

        _ = try await store.enqueue(QueueRequest(bot: "stall", cause: .manual, branch: "main"), now: Date())
        try await eventually("a host to run stall #1", timeout: .seconds(30)) {
            try await store.integrations(bot: "stall", limit: 1, before: nil).first?.isRunning == true
        }
        let running = try #require(try await store.integrations(bot: "stall", limit: 1, before: nil).first)
        let victim = try #require(hosts.first { $0.name == running.host })
        victim.server.sigkill()
        let killedAt = ContinuousClock.now
        try await eventually("another host to end it", timeout: .seconds(30)) {
            try await store.integrations(bot: "stall", limit: 10, before: nil).last?.step == .completed
        }
        let recovered = ContinuousClock.now - killedAt
        #expect(recovered < .seconds(8), "recovered \(recovered) after SIGKILL, lease 3 s")
        let ended = try #require(try await store.integrations(bot: "stall", limit: 10, before: nil).last)
        #expect(
            ended.result == .internalError && ended.reason?.sentence.contains("host '\(victim.name)' stopped answering") == true,
            "\(ended.reason?.sentence ?? "")")
        for host in hosts where host.name != victim.name { _ = try await host.server.terminate() }
    }
}
