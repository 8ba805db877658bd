import Foundation
import KilnCore
import KilnStore
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Several real `kiln serve` hosts, each with its own data directory, on one PostgreSQL database.
@Suite("Several hosts on one PostgreSQL database")
struct SeveralHostsTests {
    /// A host: its own home (kiln.yml, bots, data directory) and its server process.
    struct Host {
        let name: String
        let home: TemporaryDirectory
        let server: ServerProcess

        init(_ name: String, database: String, bots: [String: String], lease: String = "3s", executors: Int = 2) async throws {
            self.name = name
            home = try TemporaryDirectory()
            try home.write("kiln.yml", "executors: \(executors)\ndatabase: {url: '\(database)'}\nhost: \(name)\nhost-lease: \(lease)\n")
            for (bot, text) in bots { try home.write("Bots/\(bot).yml", text) }
            server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
            _ = try await server.waitForPort()
        }
    }

    static func eventually(_ what: String, timeout: Duration, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        if try await condition() { return }
        Issue.record("timed out waiting for: \(what)")
        throw CancellationError()
    }

    @Test("30 queued integrations drain across three hosts: each runs once, every host runs some, /api/hosts lists them")
    func drain() async throws {
        let database = try await PostgresServer.shared.database()
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
        try await Self.eventually("every integration to end", timeout: .seconds(90)) {
            try await store.botOverviews().allSatisfy { $0.last != nil && $0.running.isEmpty && $0.queued.isEmpty }
        }
        var ranOn: [String: Int] = [:]
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

        let port = try await hosts[1].server.waitForPort()
        let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/api/hosts")))
        let listed = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        #expect(listed.compactMap { $0["name"] as? String } == ["build-1", "build-2", "build-3"])
        #expect(listed.allSatisfy { $0["gone"] as? Bool == false && $0["executors"] as? Int == 2 && $0["botsDiffer"] as? Bool == false })
        let (integration, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/api/bots/bot0/integrations/1")))
        #expect(String(decoding: integration, as: UTF8.self).contains("\"host\":\"build-"))
        for host in hosts { _ = try await host.server.terminate() }
    }

    @Test("kill -9 of a host mid-integration: another ends it naming the host within the lease, and integrates its commit again")
    func killedHost() async throws {
        let database = try await PostgresServer.shared.database()
        let repo = try ServerTests.quickRepository()
        let marks = try TemporaryDirectory()
        // The first run of the trigger hangs (the host is killed meanwhile); the second goes through.
        let bot =
            "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers:\n  - name: wait\n    phase: before\n    run: test -f \(marks.path)/once || { touch \(marks.path)/once; sleep 60; }\n"
        let first = try await Host("build-1", database: database, bots: ["app": bot], executors: 1)
        let store = try await PostgresStore.open(DatabaseSettings(url: database))
        let queued = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        try await Self.eventually("build-1 to run the integration", timeout: .seconds(30)) {
            FileManager.default.fileExists(atPath: "\(marks.path)/once")
        }
        let second = try await Host("build-2", database: database, bots: ["app": bot], executors: 1)
        let running = try #require(try await store.integrations(bot: "app", limit: 1, before: nil).first)
        #expect(running.number == queued.integration.number && running.host == "build-1" && running.isRunning)
        let commit = try #require(running.commit)

        first.server.kill()
        let killedAt = ContinuousClock.now
        try await Self.eventually("build-2 to end it", timeout: .seconds(20)) {
            try await store.integrations(bot: "app", limit: 10, before: nil).last?.step == .completed
        }
        let recoveredAfter = ContinuousClock.now - killedAt
        let ended = try #require(try await store.integrations(bot: "app", limit: 10, before: nil).last)
        #expect(ended.result == .internalError)
        #expect(ended.reason?.contains("host 'build-1' stopped answering") == true, "\(ended.reason ?? "")")
        let log = String(decoding: try await store.readLog(bot: "app", number: 1, from: 0, limit: 1 << 20) ?? [], as: UTF8.self)
        #expect(log.contains("*** host 'build-1' stopped answering"))
        print("recovered \(recoveredAfter) after kill -9 (lease 3s)")

        try await Self.eventually("the commit integrated again on build-2", timeout: .seconds(30)) {
            try await store.integrations(bot: "app", limit: 10, before: nil).first { $0.number == 2 }?.step == .completed
        }
        let again = try #require(try await store.integrations(bot: "app", limit: 10, before: nil).first)
        #expect(again.number == 2 && again.commit == commit && again.host == "build-2" && again.result == .buildErrors)
        let hosts = try await store.hosts()
        #expect(hosts.first { $0.name == "build-1" }?.gone == true)
        let status = try runProcess(Executables.kiln, ["status"], in: second.home.path)
        #expect(status.standardOutput.contains("build-1  gone"), "\(status.standardOutput)")
        _ = try await second.server.terminate()
    }
}
