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

/// 30 hosts on one PostgreSQL with its default limit (100 connections) and Kiln's defaults
/// (`max-connections: 4`): 48 `kiln trigger`s from the command line while the hosts serve,
/// each accepted or refused, every accepted one integrated; and the connections held. Before
/// hosts took their share of the limit (`ConnectionBudget`), 24 hosts held 97 of them and 10 of
/// 48 triggers were refused ("too many clients").
struct CrowdBench {
    let kiln: String
    let work: Workspace

    static let hosts = 30
    static let triggers = 48

    func run(into table: Table) async throws {
        let postgres = try BenchPostgres(directory: work.url("crowd-postgres"), maxConnections: 100)
        defer { postgres.stop() }
        let repository = try WebBench.makeRepository(work.url("crowd-repo"))
        let bots = work.url("crowd-bots")
        try FileManager.default.createDirectory(atPath: bots, withIntermediateDirectories: true)
        for index in 1...Self.triggers {
            try
                "repository: {url: '\(repository)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers: [{name: wait, phase: before, run: 'sleep 1; exit 1'}]\n"
                .write(toFile: "\(bots)/bot-\(index).yml", atomically: false, encoding: .utf8)
        }
        try WebBench.secret.write(toFile: work.url("hosts-secret"), atomically: false, encoding: .utf8)
        let hosts = HostsBench(kiln: kiln, work: work)
        let cluster = try await hosts.cluster(postgres, database: "crowd", hosts: Self.hosts, bots: bots, executors: 2)
        defer { cluster.stop() }
        // The hosts take their shares within a few seconds of the last one's start.
        try await Task.sleep(for: .seconds(8))
        let settled = try await ManyHostsBench.connections(cluster.store)

        // The command line's home: the same database and bots.
        let home = work.url("crowd-cli")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let config = try String(contentsOfFile: work.url("crowd-host-1") + "/kiln.yml", encoding: .utf8)
        try config.write(toFile: home + "/kiln.yml", atomically: false, encoding: .utf8)
        let start = ContinuousClock.now
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 1...Self.triggers {
                group.addTask { (try? command(kiln, ["trigger", "bot-\(index)"], in: home)) != nil }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        let elapsed = Measure.milliseconds(ContinuousClock.now - start)
        let accepted = results.filter { $0 }.count
        try await until(count: accepted, cluster.store)
        let completed = try await cluster.store.botOverviews().filter { $0.last?.step == .completed }.count
        table.add(
            "kiln trigger with \(Self.hosts) hosts on PostgreSQL's default 100 connections", target: "48 of 48 accepted, none lost",
            measured: "\(accepted) of \(Self.triggers) accepted, \(completed) integrated",
            comparison: String(
                format: "all at once, in %@; the hosts held %d connections (%.1f each); before: 10 of 48 refused with 24 hosts",
                Measure.format(elapsed), settled, Double(settled) / Double(Self.hosts)))
    }

    private func until(count: Int, _ store: PostgresStore) async throws {
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline {
            if try await store.botOverviews().filter({ $0.last?.step == .completed }).count >= count { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw BenchError.unexpected("the \(count) accepted triggers were not integrated within 5 minutes")
    }
}
