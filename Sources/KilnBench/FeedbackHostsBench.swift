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

/// `test.shards: 4` on two hosts of two executors each, on one PostgreSQL database: the
/// feedback group's 60 s suite, its parts split by the last integration's durations, two on the
/// integration's host and two on the other's (from a pack of the built workspace: no second
/// build), against one `swift test` of the same suite on the same hosts.
struct FeedbackHostsBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        let postgres = try BenchPostgres(directory: work.url("feedback-postgres"))
        defer { postgres.stop() }
        let url = try postgres.database("feedback")
        let repository = try FeedbackBench(kiln: kiln, work: work).package("feedback-hosts-package")
        var servers: [Server] = []
        defer { for server in servers { server.stop() } }
        var homes: [String] = []
        for name in ["bench-1", "bench-2"] {
            let home = work.url("feedback-\(name)")
            try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
            try "executors: 2\ndatabase: {url: '\(url)'}\nhost: \(name)\n".write(toFile: home + "/kiln.yml", atomically: false, encoding: .utf8)
            for (bot, test) in [("sharded", "order: as-written, shards: 4"), ("plain", "order: as-written")] {
                try "repository: {url: '\(repository)'}\nschedule: {poll: 0}\ntest: {\(test)}\n".write(
                    toFile: home + "/Bots/\(bot).yml", atomically: false, encoding: .utf8)
            }
            let server = try Server(kiln: kiln, home: home)
            servers.append(server)
            _ = try await server.port()
            homes.append(home)
        }
        let store = try await PostgresStore.open(DatabaseSettings(url: url), logsDirectory: nil)
        defer { store.close() }
        for _ in 0..<600 where try await store.hosts().filter({ $0.address != nil }).count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        // #1 records every test's duration (split by count: no durations yet); #2 is split by them.
        _ = try command(kiln, ["trigger", "sharded"], in: homes[0])
        _ = try await FeedbackBench.ended("sharded", number: 1, in: store)
        try "more words\n".write(toFile: repository + "/README.md", atomically: false, encoding: .utf8)
        try command("/usr/bin/git", ["add", "-A"], in: repository)
        try command("/usr/bin/git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "Words"], in: repository)
        _ = try command(kiln, ["trigger", "sharded"], in: homes[0])
        let sharded = try await FeedbackBench.ended("sharded", number: 2, in: store)
        _ = try command(kiln, ["trigger", "plain"], in: homes[0])
        let plain = try await FeedbackBench.ended("plain", number: 1, in: store)
        let runs = sharded.integration.shards
        let hosts = Set(runs.map(\.host))
        let log = String(decoding: try await store.readLog(bot: "sharded", number: 2, from: 0, limit: 1 << 22) ?? [], as: UTF8.self)
        guard runs.count == 4, hosts.count == 2, runs.filter({ $0.workspace == .snapshot }).count == 2, !log.contains("Compiling"),
            sharded.tests.count == plain.tests.count
        else {
            throw BenchError.unexpected("sharded #2 did not run two parts on each host from one build: \(runs)\n\(log)")
        }
        let (testing, alone) = (try FeedbackBench.testing(sharded).duration ?? 0, try FeedbackBench.testing(plain).duration ?? 0)
        let fetched = log.split(separator: "\n").filter { $0.contains("pack of the build unpacked") }.compactMap { $0.split(separator: ", ").last }
        table.add(
            "testing step with test.shards: 4 on two hosts of 2 executors (PostgreSQL), against one swift test", target: "≤ 0.4×",
            measured: String(format: "%.2f×", testing / alone),
            comparison: String(
                format: "%.1f s against %.1f s: two parts on the other host from a pack of the one build (%@)", testing, alone,
                fetched.joined(separator: "; ")))
    }
}
