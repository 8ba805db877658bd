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

/// Several hosts on one PostgreSQL database (a server of the benchmark's own, on 127.0.0.1):
/// drain time of 300 integrations on 1 and on 3 hosts, claim latency with 3 hosts competing, a
/// webhook to its first process, recovery after `SIGKILL` of a host, and `kiln migrate`.
struct HostsBench {
    let kiln: String
    let work: Workspace

    /// Each integration of the drain waits this long in a before trigger, as a build would, so
    /// that the ratio measures coordination and not this machine's 2 cores.
    static let wait = "1"
    static let executors = 4
    static let drained = 300

    func run(into table: Table) async throws {
        let postgres = try BenchPostgres(directory: work.url("postgres"))
        defer { postgres.stop() }
        let repository = try WebBench.makeRepository(work.url("hosts-repo"))
        let bots = work.url("hosts-bots")
        try FileManager.default.createDirectory(atPath: bots, withIntermediateDirectories: true)
        for index in 1...Self.drained {
            try
                "repository: {url: '\(repository)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers: [{name: wait, phase: before, run: 'sleep \(Self.wait); exit 1'}]\n"
                .write(toFile: "\(bots)/bot-\(index).yml", atomically: false, encoding: .utf8)
        }
        let marks = work.url("hosts-marks")
        try FileManager.default.createDirectory(atPath: marks, withIntermediateDirectories: true)
        let timedRepository = try WebBench.makeRepository(work.url("hosts-timed-repo"))
        try """
        repository: {url: '\(timedRepository)'}
        schedule: {poll: 0}
        test: {enabled: false}
        sandbox: none  # the mark is written outside the workspace, where the benchmark reads it
        triggers: [{name: mark, phase: before, run: 'date +%s%N > \(marks)/$KILN_INTEGRATION'}]

        """.write(toFile: bots + "/timed.yml", atomically: false, encoding: .utf8)
        try """
        repository: {url: '\(repository)'}
        schedule: {poll: 0}
        test: {enabled: false}
        triggers: [{name: stall, phase: before, run: 'sleep 600'}]

        """.write(toFile: bots + "/stall.yml", atomically: false, encoding: .utf8)
        try WebBench.secret.write(toFile: work.url("hosts-secret"), atomically: false, encoding: .utf8)

        // Drain time, 1 host then 3.
        let single = try await cluster(postgres, database: "drain_1", hosts: 1, bots: bots)
        let alone = try await drain(single)
        let webhookAlone = try await firstProcess(single, repository: timedRepository, marks: marks, rounds: 1...9)
        for mark in try FileManager.default.contentsOfDirectory(atPath: marks) { try FileManager.default.removeItem(atPath: marks + "/" + mark) }
        single.stop()
        let three = try await cluster(postgres, database: "drain_3", hosts: 3, bots: bots)
        defer { three.stop() }
        let together = try await drain(three)
        table.add(
            "drain \(Self.drained) queued integrations, 1 host vs 3 hosts", target: "ratio ≥ 2.7×",
            measured: String(format: "%.1f s vs %.1f s: %.2f×", alone, together, alone / together),
            comparison: "each waits \(Self.wait) s in a trigger that then fails it (no build); \(Self.executors) executors per host, one PostgreSQL")

        // Claim latency: one integration queued at a time, 3 hosts idle and competing for it.
        let latencies = try await claimLatencies(three.store)
        table.add(
            "claim latency (queued → claimed), 3 hosts competing", target: "p50 < 20 ms, p99 < 100 ms",
            measured: String(format: "p50 %@, p99 %@", Measure.format(latencies[49]), Measure.format(latencies[98])),
            comparison: "100 integrations queued one at a time; woken by LISTEN/NOTIFY")

        // A webhook to one host, to the first process on whichever host claims it.
        let webhook = try await firstProcess(three, repository: timedRepository, marks: marks, rounds: 1...9)
        table.add(
            "webhook answered 202 to its first process started, PostgreSQL", target: "median < 50 ms",
            measured: Measure.format(webhook),
            comparison: "9 signed generic pushes to the 3 hosts in turn; to 1 host: \(Measure.format(webhookAlone))")
        three.stop()

        // Recovery after SIGKILL of the host running an integration.
        var recoveries: [Double] = []
        for round in 1...3 {
            let pair = try await cluster(postgres, database: "recovery_\(round)", hosts: 2, bots: bots, executors: 1, lease: "5s")
            defer { pair.stop() }
            _ = try await pair.store.enqueue(QueueRequest(bot: "stall", cause: .manual, branch: "main"), now: Date())
            var running: Integration?
            while running == nil {
                running = try await pair.store.integrations(bot: "stall", limit: 1, before: nil).first.flatMap { $0.isRunning ? $0 : nil }
                try await Task.sleep(for: .milliseconds(20))
            }
            guard let host = running?.host, let victim = pair.servers.first(where: { $0.name == host }) else {
                throw BenchError.unexpected("the stalling integration names no host of the benchmark")
            }
            victim.server.stop()
            let stopped = ContinuousClock.now
            let deadline = Date().addingTimeInterval(60)
            while try await pair.store.integrations(bot: "stall", limit: 10, before: nil).last?.step != .completed, Date() < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            recoveries.append(Measure.milliseconds(ContinuousClock.now - stopped))
        }
        recoveries.sort()
        table.add(
            "recovery after SIGKILL of a host (lease 5 s)", target: "≤ lease + 5 s", measured: Measure.format(recoveries[1]),
            comparison: "until another host ended its integration; median of 3")

        try await migrate(postgres, into: table)
    }

    /// `kiln migrate` of a data directory with 10,000 integrations, 2,000 of them with a 64 KiB log.
    private func migrate(_ postgres: BenchPostgres, into table: Table) async throws {
        let home = work.url("migrate")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let store = try SQLiteStore.open(dataDirectory: home + "/.kiln")
        let count = 10_000
        try await StoreBench(work: work).fill(store, count: count)
        let line = Array(repeating: UInt8(ascii: "x"), count: 127) + [UInt8(ascii: "\n")]
        let log = Data((0..<512).flatMap { _ in line })
        var bytes = 0
        var logged: [Integration] = []
        for bot in 1...50 { logged += try await store.integrations(bot: "bot-\(bot)", limit: 40, before: nil) }
        for integration in logged {
            guard let path = store.logLocation(bot: integration.bot, number: integration.number) else { continue }
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try log.write(to: URL(fileURLWithPath: path))
            bytes += log.count
        }
        let url = try postgres.database("migrated")
        let start = ContinuousClock.now
        try command(kiln, ["migrate", "--data", home + "/.kiln", "--to", url], in: home)
        let elapsed = Measure.milliseconds(ContinuousClock.now - start)
        table.add(
            "kiln migrate of \(count.formatted()) integrations and \(bytes / 1_000_000) MB of logs", target: "(no target)",
            measured: Measure.format(elapsed), comparison: "SQLite to PostgreSQL on the same machine, verified")
    }

    /// The median time from posting a push webhook (to each host in turn) to the first process
    /// of the integration it queued, in milliseconds.
    private func firstProcess(_ cluster: Cluster, repository: String, marks: String, rounds: ClosedRange<Int>) async throws -> Double {
        var latencies: [Double] = []
        for round in rounds {
            let commit = try WebBench.commitTo(repository, round: round)
            let start = Date().timeIntervalSince1970
            let status = try await WebBench.post(cluster.base(round), repository: repository, commit: commit)
            guard status == 202 else { throw BenchError.unexpected("webhook answered \(status)") }
            latencies.append((try await Measure.markTime("\(marks)/\(round)") - start) * 1000)
            try await Task.sleep(for: .milliseconds(300))
        }
        FileHandle.standardError.write(Data("  samples: \(latencies.map { Measure.format($0) }.joined(separator: ", "))\n".utf8))
        latencies.sort()
        return latencies[latencies.count / 2]
    }

    /// Queue → claim latencies of 100 integrations queued one at a time, in milliseconds, sorted.
    func claimLatencies(_ store: PostgresStore) async throws -> [Double] {
        var latencies: [Double] = []
        for index in 1...100 {
            let queued = try await store.enqueue(QueueRequest(bot: "bot-\(index)", cause: .manual, branch: "main"), now: Date())
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                if let started = try await store.integrations(bot: "bot-\(index)", limit: 1, before: nil).first?.startedAt {
                    latencies.append(started.timeIntervalSince(queued.integration.queuedAt) * 1000)
                    break
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        guard latencies.count == 100 else { throw BenchError.unexpected("only \(latencies.count) of 100 integrations were claimed") }
        return latencies.sorted()
    }

    /// Drains `count` integrations of the bots `bot-1`…`bot-<count>` and returns how long it took,
    /// in seconds: queued one at a time through the store, or, with `push`, by one push webhook of
    /// `repository` at `commit` to the first host, as a push to a repository that many bots build
    /// queues them (in one transaction). The end is looked for with one cheap count every 50 ms: a
    /// heavier look (the front page's query, 66 ms with 432 bots) took a third of a core from the
    /// hosts it measured.
    func drain(
        _ cluster: Cluster, count: Int = drained, push: (repository: String, commit: String)? = nil, timeout: TimeInterval = 600
    ) async throws -> Double {
        let start = ContinuousClock.now
        if let push {
            let status = try await WebBench.post(cluster.base(0), repository: push.repository, commit: push.commit)
            guard status == 202 else { throw BenchError.unexpected("the push webhook answered \(status)") }
        } else {
            for index in 1...count {
                _ = try await cluster.store.enqueue(QueueRequest(bot: "bot-\(index)", cause: .manual, branch: "main"), now: Date())
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let (completed, active) = try await cluster.store.engine.read("counting the drained integrations") { db in
                let row = try db.rows(
                    """
                    SELECT count(*) FILTER (WHERE step = 'completed') AS completed, count(*) FILTER (WHERE step <> 'completed') AS active
                    FROM integration WHERE bot LIKE 'bot-%'
                    """, []
                ).first
                return (row?["completed"] ?? 0, row?["active"] ?? 0) as (Int, Int)
            }
            if completed >= count, active == 0 { return Measure.milliseconds(ContinuousClock.now - start) / 1000 }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError.unexpected("\(count) integrations did not drain within \(Int(timeout)) s")
    }

    /// `hosts` servers on a new database, each with its own data directory, reading `bots`.
    func cluster(
        _ postgres: BenchPostgres, database: String, hosts: Int, bots: String, executors: Int = executors, lease: String = "30s"
    ) async throws -> Cluster {
        let url = try postgres.database(database)
        var started: [(name: String, server: Server)] = []
        for index in 1...hosts {
            let home = work.url("\(database)-host-\(index)")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try """
            executors: \(executors)
            database: {url: '\(url)'}
            host: host-\(index)
            host-lease: \(lease)
            bots: \(bots)
            webhooks: {secret-file: '\(work.url("hosts-secret"))'}

            """.write(toFile: home + "/kiln.yml", atomically: false, encoding: .utf8)
            started.append((name: "host-\(index)", server: try Server(kiln: kiln, home: home)))
        }
        // Each on a port the kernel chose, and answering on it.
        var servers: [(name: String, port: Int, server: Server)] = []
        for (name, server) in started {
            let port = try await server.port()
            do {
                try await WebBench.waitForHTTP("http://127.0.0.1:\(port)/health")
            } catch {
                let log = (try? String(contentsOfFile: server.home + "/kiln-serve.log", encoding: .utf8)) ?? ""
                throw BenchError.unexpected("\(name) did not answer; its output ends:\n\(log.suffix(1500))")
            }
            servers.append((name: name, port: port, server: server))
        }
        let cluster = Cluster(store: try await PostgresStore.open(DatabaseSettings(url: url)), servers: servers)
        return cluster
    }

    struct Cluster {
        let store: PostgresStore
        let servers: [(name: String, port: Int, server: Server)]

        func base(_ index: Int) -> String { "http://127.0.0.1:\(servers[index % servers.count].port)" }

        func stop() {
            for server in servers { server.server.stop() }
            store.close()
        }
    }
}
