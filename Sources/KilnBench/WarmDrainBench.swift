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

/// Warm workspaces at scale: 24 hosts of 3 executors on one PostgreSQL drain a real package's
/// integrations (swift-argument-parser 1.8.2, built without its tests), four bots pushed six
/// times, one source changed each time, once with snapshots and once with `cache: none`. Which
/// host and slot an integration lands on is whichever claims it first, so without snapshots
/// nearly every integration meets a new workspace; the figure is the compile time they add up to.
struct WarmDrainBench {
    let kiln: String
    let work: Workspace

    static let hosts = 24
    static let executors = 3
    static let bots = 4
    static let rounds = 6

    func run(into table: Table) async throws {
        let copy = "/opt/swift-packages/apple/swift-argument-parser.git"
        guard FileManager.default.fileExists(atPath: copy) else {
            throw BenchError.unexpected("\(copy) is missing: this bench builds the machine's copy")
        }
        let postgres = try BenchPostgres(directory: work.url("drain-postgres"))
        defer { postgres.stop() }
        try WebBench.secret.write(toFile: work.url("hosts-secret"), atomically: false, encoding: .utf8)
        var drains: [Drain] = []
        for cache in ["warm", "none"] {
            let repository = work.url("drain-package-\(cache)")
            try command(WarmBench.git, ["clone", "-q", copy, repository])
            try command(WarmBench.git, ["checkout", "-q", "-B", "main", "1.8.2"], in: repository)
            let bots = work.url("drain-bots-\(cache)")
            try FileManager.default.createDirectory(atPath: bots, withIntermediateDirectories: true)
            for index in 1...Self.bots {
                try "repository: {url: '\(repository)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ncache: \(cache)\n"
                    .write(toFile: "\(bots)/bot-\(index).yml", atomically: false, encoding: .utf8)
            }
            drains.append(try await drain(postgres, cache: cache, repository: repository, bots: bots))
        }
        let (warm, cold) = (drains[0], drains[1])
        table.add(
            "compile time of \(Self.bots * Self.rounds) integrations on \(Self.hosts) hosts × \(Self.executors) executors",
            target: "against the same drain without snapshots",
            measured: String(
                format: "%.0f s with snapshots, %.0f s without: %.0f %%", warm.building, cold.building, warm.building / cold.building * 100),
            comparison: "swift-argument-parser 1.8.2, \(Self.bots) bots × \(Self.rounds) pushes; the building steps added up")
        table.add(
            "where those workspaces came from", target: "for reference",
            measured: "with: \(warm.origins); without: \(cold.origins)",
            comparison: String(
                format: "seeding took %.1f s in all; whole drains %.0f s and %.0f s", warm.seeding, warm.seconds, cold.seconds))
    }

    /// One drain's figures: seconds spent building, seeding and in all, and the workspaces' origins.
    struct Drain {
        var building = 0.0
        var seeding = 0.0
        var seconds = 0.0
        var counts: [WorkspaceOrigin.Kind: Int] = [:]

        /// "4 cold, 20 snapshot"
        var origins: String {
            counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        }
    }

    private func drain(_ postgres: BenchPostgres, cache: String, repository: String, bots: String) async throws -> Drain {
        let hosts = HostsBench(kiln: kiln, work: work)
        let cluster = try await hosts.cluster(
            postgres, database: "drain_\(cache)", hosts: Self.hosts, bots: bots, executors: Self.executors, lease: "60s")
        defer { cluster.stop() }
        var result = Drain()
        for round in 1...Self.rounds {
            try WarmBench.change(repository, round)
            let head = try command(WarmBench.git, ["rev-parse", "HEAD"], in: repository).trimmingCharacters(in: .whitespacesAndNewlines)
            result.seconds += try await hosts.drain(cluster, count: Self.bots * round, push: (repository, head), timeout: 1800)
            if cache == "warm" { try await snapshotsKept(cluster.store) }
        }
        for bot in 1...Self.bots {
            for number in 1...Self.rounds {
                guard let detail = try await cluster.store.integration(bot: "bot-\(bot)", number: number),
                    detail.integration.result == .succeeded || detail.integration.result == .warnings,
                    let origin = detail.integration.workspace
                else { throw BenchError.unexpected("bot-\(bot) #\(number) did not build (see \(work.path))") }
                result.building += detail.steps.first { $0.name == .building }?.duration ?? 0
                result.seeding += origin.origin == .snapshot || origin.origin == .copy ? origin.seconds ?? 0 : 0
                result.counts[origin.origin, default: 0] += 1
            }
        }
        return result
    }

    /// Waits until every bot's snapshot is packed and recorded: a host packs once the result is
    /// recorded, so the drain may end first, where pushes minutes apart would find it.
    private func snapshotsKept(_ store: PostgresStore) async throws {
        let deadline = Date().addingTimeInterval(120)
        for bot in 1...Self.bots {
            while try await store.snapshots(bot: "bot-\(bot)", cell: "branch", elsewhereThan: "").isEmpty {
                guard Date() < deadline else { throw BenchError.unexpected("bot-\(bot)'s snapshot was not recorded within 2 minutes") }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
