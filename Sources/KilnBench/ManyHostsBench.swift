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

/// Many hosts on one PostgreSQL database: 24 hosts of 3 executors drain the 432 integrations one
/// push queues (432 bots build the repository; each integration waits 3 s in a trigger, then
/// fails it: no build, so that the figure is coordination), with the connections they hold, the
/// integrations lost to hosts wrongly taken as gone, and claim latency with every host competing.
struct ManyHostsBench {
    let kiln: String
    let work: Workspace

    static let hosts = 24
    static let executors = 3
    static let integrations = 432
    static let wait = 3.0

    func run(into table: Table) async throws {
        let postgres = try BenchPostgres(directory: work.url("many-postgres"))
        defer { postgres.stop() }
        let repository = try WebBench.makeRepository(work.url("many-repo"))
        let bots = work.url("many-bots")
        try FileManager.default.createDirectory(atPath: bots, withIntermediateDirectories: true)
        for index in 1...Self.integrations {
            try
                "repository: {url: '\(repository)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers: [{name: wait, phase: before, run: 'sleep \(Self.wait); exit 1'}]\n"
                .write(toFile: "\(bots)/bot-\(index).yml", atomically: false, encoding: .utf8)
        }
        try WebBench.secret.write(toFile: work.url("hosts-secret"), atomically: false, encoding: .utf8)
        let hosts = HostsBench(kiln: kiln, work: work)
        let cluster = try await hosts.cluster(postgres, database: "many", hosts: Self.hosts, bots: bots, executors: Self.executors, lease: "30s")
        defer { cluster.stop() }
        let idle = try await Self.connections(cluster.store)

        // The drain, with the connections counted meanwhile.
        let store = cluster.store
        let counting = Task {
            var highest = 0
            while !Task.isCancelled {
                highest = max(highest, (try? await Self.connections(store)) ?? 0)
                try? await Task.sleep(for: .milliseconds(250))
            }
            return highest
        }
        let head = try command("/usr/bin/git", ["rev-parse", "HEAD"], in: repository).trimmingCharacters(in: .whitespacesAndNewlines)
        let drained = try await hosts.drain(cluster, count: Self.integrations, push: (repository, head))
        counting.cancel()
        let highest = await counting.value
        var lost = 0
        for overview in try await cluster.store.botOverviews() where overview.last?.result == .internalError { lost += 1 }
        let ideal = Double(Self.integrations) * Self.wait / Double(Self.hosts * Self.executors)
        table.add(
            "drain \(Self.integrations) integrations on \(Self.hosts) hosts × \(Self.executors) executors", target: "≤ 1.3× the ideal",
            measured: String(format: "%.1f s: %.2f× the ideal %.0f s", drained, drained / ideal, ideal),
            comparison: "one push queues them all; each waits \(Int(Self.wait)) s in a trigger that then fails it (no build); one PostgreSQL")
        table.add(
            "connections of \(Self.hosts) hosts, idle and draining", target: "≤ 4 per host",
            measured: String(format: "%d idle, %d at most: %.1f per host", idle, highest, Double(highest) / Double(Self.hosts)),
            comparison: "pg_stat_activity on the database, every 250 ms, asked on the benchmark's own connection (not counted)")
        table.add(
            "integrations lost to a host taken as gone, \(Self.hosts) hosts", target: "none", measured: "\(lost) of \(Self.integrations)",
            comparison: "internal-error results after the drain (lease 30 s)")

        // Claim latency: one integration queued at a time, every host competing for it.
        let latencies = try await hosts.claimLatencies(cluster.store)
        table.add(
            "claim latency (queued → claimed), \(Self.hosts) hosts competing", target: "p50 < 20 ms, p99 < 100 ms",
            measured: String(format: "p50 %@, p99 %@", Measure.format(latencies[49]), Measure.format(latencies[98])),
            comparison: "100 integrations queued one at a time; woken by LISTEN/NOTIFY")
    }
}

extension ManyHostsBench {
    /// Connections to the store's database now, its own (which asks) aside. Asked on that
    /// connection: a `psql` started every 250 ms took 5 % of the machine's CPU from the hosts.
    static func connections(_ store: PostgresStore) async throws -> Int {
        try await store.engine.read("counting connections") { db in
            try db.rows("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()", []).first?["n"]
                ?? 0
        }
    }
}
