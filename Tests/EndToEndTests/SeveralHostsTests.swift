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
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The network the suite's hosts share: a lab of network namespaces with PostgreSQL in its own,
/// made once per test process; each test gets its own database and hosts.
actor Cluster {
    static let shared = Cluster()

    private var made: (lab: NetworkLab, postgres: PostgresServer.Isolated)?
    private var databases = 0

    func lab() throws -> NetworkLab {
        try make().lab
    }

    /// A new, empty database on the lab's PostgreSQL, by its address in the lab.
    func database() async throws -> String {
        let postgres = try make().postgres
        databases += 1
        return try await postgres.database("hosts_\(databases)")
    }

    private func make() throws -> (lab: NetworkLab, postgres: PostgresServer.Isolated) {
        if let made { return made }
        let lab = try NetworkLab()
        let postgres = try PostgresServer.start(inNamespace: lab.network, address: lab.networkAddress)
        made = (lab, postgres)
        return (lab, postgres)
    }
}

/// Several real `kiln serve` hosts, each in its own network namespace with its own data
/// directory, on one PostgreSQL database in another namespace.
@Suite("Several hosts on one PostgreSQL database, in network namespaces", .serialized)
struct SeveralHostsTests {
    /// A host: its own namespace and address, its own home (kiln.yml, bots, data directory), and
    /// its server process.
    struct Host {
        let name: String
        let namespace: String
        let address: String
        let home: TemporaryDirectory
        let server: ServerProcess
        let port: Int

        init(_ name: String, database: String, bots: [String: String], lease: String = "3s", executors: Int = 2, config: String = "") async throws {
            self.name = name
            (namespace, address) = try await Cluster.shared.lab().addHost()
            home = try TemporaryDirectory()
            try home.write("kiln.yml", "executors: \(executors)\ndatabase: {url: '\(database)'}\nhost: \(name)\nhost-lease: \(lease)\n" + config)
            for (bot, text) in bots { try home.write("Bots/\(bot).yml", text) }
            server = try ServerProcess(
                executable: NetworkLab.ip,
                arguments: NetworkLab.inNamespace(namespace, [Executables.kiln, "serve", "--listen", "\(address):0"]).dropFirst().map { $0 },
                in: home.path)
            port = try await server.waitForPort()
        }

        func url(_ path: String) throws -> URL {
            try #require(URL(string: "http://\(address):\(port)\(path)"))
        }

        /// This host's own copy of an integration's log (`KILN_LOG`), where it also says why it stopped.
        func localLog(_ bot: String, _ number: Int) -> String {
            (try? String(contentsOfFile: home.url(".kiln/logs/\(bot)/\(number).log"), encoding: .utf8)) ?? ""
        }
    }

    /// build-1 running app #1, whose before trigger holds on its first run for as long as
    /// `hold(marks)` (a shell command) runs, and build-2 started beside it, on a new database.
    struct Held {
        let first: Host
        let second: Host
        let store: PostgresStore
        /// Kept for the test's length: the trigger's marks, and the repository integrated.
        let marks: TemporaryDirectory
        let repository: GitFixture
    }

    static func firstRunHeld(_ hold: (String) -> String) async throws -> Held {
        let database = try await Cluster.shared.database()
        let repo = try ServerTests.quickRepository()
        let marks = try TemporaryDirectory()
        let bot =
            "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\nsandbox: none\ntriggers:\n  - name: wait\n    phase: before\n    run: test -f \(marks.path)/once || { touch \(marks.path)/once; \(hold(marks.path)); }\n"
        let first = try await Host("build-1", database: database, bots: ["app": bot], executors: 1)
        let store = try await PostgresStore.open(DatabaseSettings(url: database))
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        try await eventually("build-1 to run the integration", timeout: .seconds(30)) { FileManager.default.fileExists(atPath: "\(marks.path)/once") }
        let second = try await Host("build-2", database: database, bots: ["app": bot], executors: 1)
        return Held(first: first, second: second, store: store, marks: marks, repository: repo)
    }

    @Test("30 queued integrations drain across three hosts: each runs once, every host runs some, /api/hosts lists them")
    func drain() async throws {
        let database = try await Cluster.shared.database()
        let repo = try ServerTests.quickRepository()
        // Each integration waits a moment in a before trigger, as builds would, so that every host gets work.
        var bots: [String: String] = [:]
        for index in 0..<30 {
            bots["bot\(index)"] =
                "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers:\n  - name: wait\n    phase: before\n    run: sleep 1\n"
        }
        var hosts: [Host] = []
        for name in ["build-1", "build-2", "build-3"] { hosts.append(try await Host(name, database: database, bots: bots, lease: "30s")) }
        let store = try await PostgresStore.open(DatabaseSettings(url: database))
        for index in 0..<30 { _ = try await store.enqueue(QueueRequest(bot: "bot\(index)", cause: .manual, branch: "main"), now: Date()) }
        try await eventually("every integration to end", timeout: .seconds(90)) {
            try await store.botOverviews().allSatisfy { $0.last != nil && $0.running.isEmpty && $0.queued.isEmpty }
        }
        var ranOn: [String: Int] = [:]
        var ids: [Int64] = []
        for index in 0..<30 { ids += try await store.integrations(bot: "bot\(index)", limit: 10, before: nil).map(\.id) }
        ids.sort()
        #expect(ids == Array(ids[0]..<ids[0] + 30), "30 integrations, ids gapless: \(ids)")
        for index in 0..<30 {
            let integrations = try await store.integrations(bot: "bot\(index)", limit: 10, before: nil)
            #expect(integrations.map(\.number) == [1], "bot\(index): one integration, numbered 1")
            let integration = try #require(integrations.first)
            #expect(integration.result == .buildErrors, "bot\(index): ran to its end (a repository without a package)")
            let log = String(decoding: try await store.readLog(bot: "bot\(index)", number: 1, from: 0, limit: 1 << 20) ?? [], as: UTF8.self)
            #expect(log.components(separatedBy: "=== checkout").count == 2, "bot\(index) was checked out exactly once")
            #expect(log.components(separatedBy: "*** result:").count == 2, "bot\(index) has exactly one result")
            ranOn[integration.host ?? "none", default: 0] += 1
        }
        #expect(Set(ranOn.keys) == ["build-1", "build-2", "build-3"], "every host ran some: \(ranOn)")

        let (data, _) = try await URLSession.shared.data(from: try hosts[1].url("/api/hosts"))
        let listed = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        #expect(listed.compactMap { $0["name"] as? String } == ["build-1", "build-2", "build-3"])
        #expect(listed.allSatisfy { $0["gone"] as? Bool == false && $0["executors"] as? Int == 2 && $0["botsDiffer"] as? Bool == false })
        let (integration, _) = try await URLSession.shared.data(from: try hosts[2].url("/api/bots/bot0/integrations/1"))
        #expect(String(decoding: integration, as: UTF8.self).contains("\"host\":\"build-"))
        for host in hosts { _ = try await host.server.terminate() }
    }

    @Test("SIGKILL of a host mid-integration: another ends it naming the host within the lease, and integrates its commit again")
    func killedHost() async throws {
        // The first run hangs (the host is stopped meanwhile); the second goes through.
        let held = try await Self.firstRunHeld { _ in "sleep 60" }
        let (first, second, store) = (held.first, held.second, held.store)
        let running = try #require(try await store.integrations(bot: "app", limit: 1, before: nil).first)
        #expect(running.number == 1 && running.host == "build-1" && running.isRunning)
        let commit = try #require(running.commit)

        first.server.sigkill()
        let killedAt = ContinuousClock.now
        try await eventually("build-2 to end it", timeout: .seconds(20)) {
            try await store.integrations(bot: "app", limit: 10, before: nil).last?.step == .completed
        }
        let recoveredAfter = ContinuousClock.now - killedAt
        let ended = try #require(try await store.integrations(bot: "app", limit: 10, before: nil).last)
        #expect(ended.result == .internalError)
        #expect(ended.reason?.sentence.contains("host 'build-1' stopped answering") == true, "\(ended.reason?.sentence ?? "")")
        let log = String(decoding: try await store.readLog(bot: "app", number: 1, from: 0, limit: 1 << 20) ?? [], as: UTF8.self)
        #expect(log.contains("*** host 'build-1' stopped answering"))
        print("recovered \(recoveredAfter) after SIGKILL (lease 3s)")

        try await eventually("the commit integrated again on build-2", timeout: .seconds(30)) {
            try await store.integrations(bot: "app", limit: 10, before: nil).first { $0.number == 2 }?.step == .completed
        }
        let again = try #require(try await store.integrations(bot: "app", limit: 10, before: nil).first)
        #expect(again.number == 2 && again.commit == commit && again.host == "build-2" && again.result == .buildErrors)
        let hosts = try await store.hosts()
        #expect(hosts.first { $0.name == "build-1" }?.gone == true)
        let status = try await runProcess(Executables.kiln, ["status"], in: second.home.path)
        #expect(status.standardOutput.contains("build-1  gone"), "\(status.standardOutput)")
        _ = try await second.server.terminate()
    }

    @Test(
        "A host cut off mid-integration is recovered like a stopped one; when its link returns, its late writes are refused, it says so in its log, and it takes new work"
    )
    func cutOff() async throws {
        // The first run waits for the test's word; later runs go through.
        let held = try await Self.firstRunHeld { marks in "while [ ! -f \(marks)/release ]; do sleep 0.2; done; echo $((6 * 7))-late" }
        let (first, second, store) = (held.first, held.second, held.store)

        let lab = try await Cluster.shared.lab()
        try lab.cut(first.namespace)
        let cutAt = ContinuousClock.now
        try await eventually("build-2 to end #1 and integrate its commit again as #2", timeout: .seconds(40)) {
            let history = try await store.integrations(bot: "app", limit: 10, before: nil)
            return history.count == 2 && history.allSatisfy { $0.step == .completed }
        }
        print("recovered and re-integrated \(ContinuousClock.now - cutAt) after the cut (lease 3s)")
        let history = try await store.integrations(bot: "app", limit: 10, before: nil)
        let lost = try #require(history.first { $0.number == 1 })
        #expect(lost.result == .internalError && lost.host == "build-1")
        #expect(lost.reason?.sentence.contains("host 'build-1' stopped answering") == true, "\(lost.reason?.sentence ?? "")")
        let again = try #require(history.first { $0.number == 2 })
        #expect(again.host == "build-2" && again.result == .buildErrors && again.commit == lost.commit)

        // The link returns; the cut-off host's trigger ends; whatever it tries to write is refused.
        try lab.restore(first.namespace)
        try "".write(toFile: "\(held.marks.path)/release", atomically: true, encoding: .utf8)
        try await eventually(
            "build-1 to stop its lost integration", timeout: .seconds(40),
            context: "build-1's log:\n\(first.localLog("app", 1))\nits output:\n\(first.server.standardOutput)"
        ) {
            first.localLog("app", 1).contains("stopped: ")
        }
        #expect(first.localLog("app", 1).contains("ended already"), "\(first.localLog("app", 1))")
        let after = try #require(try await store.integrations(bot: "app", limit: 10, before: nil).first { $0.number == 1 })
        #expect(after == lost, "the late host changed nothing of the recovered integration")
        let log = String(decoding: try await store.readLog(bot: "app", number: 1, from: 0, limit: 1 << 20) ?? [], as: UTF8.self)
        #expect(!log.contains("42-late"), "no late log output reached the database")

        // It takes new work: with build-2 gone, the next integration runs on build-1.
        _ = try await second.server.terminate()
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        try await eventually("build-1 to run #3", timeout: .seconds(40)) {
            try await store.integrations(bot: "app", limit: 1, before: nil).first.map { $0.number == 3 && $0.step == .completed } == true
        }
        let third = try #require(try await store.integrations(bot: "app", limit: 1, before: nil).first)
        #expect(third.host == "build-1" && third.result == .buildErrors)
        _ = try await first.server.terminate()
    }

    @Test("A webhook sent to one host is run by a third while a second streams its live log")
    func webhookAndLiveLog() async throws {
        let database = try await Cluster.shared.database()
        let repo = try ServerTests.quickRepository()
        let other = try ServerTests.quickRepository()
        let stall =
            "repository: {url: '\(other.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers:\n  - name: stall\n    phase: before\n    run: sleep 120\n"
        let bots = [
            "busy1": stall, "busy2": stall,
            "app":
                "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers:\n  - name: progress\n    phase: before\n    run: for i in 1 2 3 4 5 6; do echo progress-$i; sleep 0.5; done\n",
        ]
        let first = try await Host("build-1", database: database, bots: bots, executors: 1)
        let second = try await Host("build-2", database: database, bots: bots, executors: 1)
        let store = try await PostgresStore.open(DatabaseSettings(url: database))
        // build-1 and build-2 are busy; only build-3 has an executor free.
        for bot in ["busy1", "busy2"] { _ = try await store.enqueue(QueueRequest(bot: bot, cause: .manual, branch: "main"), now: Date()) }
        try await eventually("build-1 and build-2 to be busy", timeout: .seconds(30)) {
            Set(try await store.botOverviews().flatMap(\.running).compactMap(\.host)) == ["build-1", "build-2"]
        }
        let third = try await Host("build-3", database: database, bots: bots, executors: 1)

        var request = URLRequest(url: try first.url("/hooks/generic"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"repository": "\#(repo.url)", "branch": "main", "commit": "\#(try repo.head())"}"#.utf8)
        let (answer, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 202, "\(String(decoding: answer, as: UTF8.self))")
        #expect(String(decoding: answer, as: UTF8.self).contains(#""bot":"app""#))

        try await eventually("build-3 to run app #1", timeout: .seconds(20)) {
            try await store.integrations(bot: "app", limit: 1, before: nil).first?.isRunning == true
        }
        let stream = StreamingGet(try second.url("/bots/app/integrations/1/log"))
        var lines: [String] = []
        var whileRunning: [String] = []
        for await line in stream.lines {
            lines.append(line)
            if line.hasPrefix("progress-"), try await store.integrations(bot: "app", limit: 1, before: nil).first?.isRunning == true {
                whileRunning.append(line)
            }
        }
        #expect(lines.filter { $0.hasPrefix("progress-") } == (1...6).map { "progress-\($0)" }, "\(lines)")
        #expect(whileRunning.count >= 3, "build-2 streamed the output as build-3 wrote it: \(whileRunning)")
        #expect(lines.contains { $0.hasPrefix("*** result:") }, "the stream ends with the result")
        let integration = try #require(try await store.integrations(bot: "app", limit: 1, before: nil).first)
        #expect(integration.host == "build-3" && integration.step == .completed)
        let deliveries = try await store.webhookDeliveries(limit: 10)
        #expect(deliveries.count == 1 && deliveries.first?.integrations.map(\.bot) == ["app"])
        for host in [first, second, third] { _ = try await host.server.terminate() }
    }

    @Test("With three hosts, each report mail and the daily digest are sent exactly once")
    func mailOnce() async throws {
        let database = try await Cluster.shared.database()
        let lab = try await Cluster.shared.lab()
        var options = SMTPServer.Options()
        options.namespace = lab.network
        options.host = lab.networkAddress
        let smtp = try await SMTPServer.start(options)
        let repo = try ServerTests.quickRepository()
        let bot =
            "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers:\n  - {email: report, every: integration, to: [team@example.com]}\n  - {email: report, every: daily, to: [team@example.com]}\n"
        // History from the day before the last report time, so that a digest is due at once.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        let midnight = calendar.startOfDay(for: Date())
        let store = try await PostgresStore.open(DatabaseSettings(url: database))
        try await store.syncBots(
            [BotState(name: "app", file: "Bots/app.yml", repository: repo.url, branch: "main")], now: midnight.addingTimeInterval(-86_400))
        try await store.record("app", outcome: IntegrationOutcome(result: .succeeded), at: midnight.addingTimeInterval(-43_200))

        let config = "smtp: {url: '\(smtp.url)', from: kiln@example.com}\ntime-zone: UTC\nreports: {daily-at: '00:00'}\n"
        var hosts: [Host] = []
        for name in ["build-1", "build-2", "build-3"] {
            hosts.append(try await Host(name, database: database, bots: ["app": bot], lease: "30s", executors: 1, config: config))
        }
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        try await eventually("#2 to end", timeout: .seconds(30)) {
            try await store.integrations(bot: "app", limit: 1, before: nil).first.map { $0.number == 2 && $0.step == .completed } == true
        }
        let expected = 3
        _ = try await smtp.waitForMessages(expected, timeout: .seconds(30))
        // Time for any second copy to arrive: every host runs its mail round at least once a second.
        try await Task.sleep(for: .seconds(3))
        let subjects = try smtp.messages().map(\.subject).sorted()
        #expect(subjects.count == expected, "\(subjects)")
        #expect(Set(subjects).count == subjects.count, "each mail once: \(subjects)")
        #expect(subjects.contains { $0.hasPrefix("Kiln daily report") }, "\(subjects)")
        #expect(subjects.filter { $0.hasPrefix("[app] #") }.count == 2, "one report per integration: \(subjects)")
        let outbox = try await store.outbox(limit: 10)
        #expect(outbox.sent == expected && outbox.queued == 0 && outbox.failed == 0)
        for host in hosts { _ = try await host.server.terminate() }
    }
}
