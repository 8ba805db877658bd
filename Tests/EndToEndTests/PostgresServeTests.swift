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

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("kiln serve on PostgreSQL (database.url in kiln.yml)")
struct PostgresServeTests {
    @Test("A trigger from another process integrates at once; the pages, the log and kiln status read it from the database")
    func integrates() async throws {
        let url = try await PostgresServer.shared.database()
        let repo = try ServerTests.quickRepository()
        let served = try await ServedHome(
            bots: ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"],
            config: "executors: 1\ndatabase: {url: '\(url)'}\nhost: build-1\n")
        let store = try await PostgresStore.open(DatabaseSettings(url: url), logsDirectory: nil)
        let trigger = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        #expect(trigger.status == 0, "\(trigger.standardError)")
        #expect(trigger.standardOutput == "queued app #1\n")
        try await served.eventually("the integration to end") {
            try await store.integrations(bot: "app", limit: 1, before: nil).first?.step == .completed
        }
        let integration = try #require(try await store.integrations(bot: "app", limit: 1, before: nil).first)
        #expect(integration.result == .buildErrors, "a repository without a package")
        #expect(integration.commit == (try repo.head()))
        #expect(!FileManager.default.fileExists(atPath: served.home.url(".kiln/kiln.sqlite")), "no SQLite file beside PostgreSQL")

        let port = try await served.server.waitForPort()
        let (page, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/1")))
        #expect(String(decoding: page, as: UTF8.self).contains("build-errors"))
        let (log, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/1/log")))
        #expect(String(decoding: log, as: UTF8.self).contains("=== checkout"))
        let status = try await runProcess(Executables.kiln, ["status", "--json"], in: served.home.path)
        #expect(status.status == 0, "\(status.standardError)")
        #expect(status.standardOutput.contains("\"build-errors\""))
        let output = try await served.server.terminate()
        #expect(output.status == 0)
    }

    @Test("Losing the database while serving: pages and API answer 503, and everything resumes when it returns")
    func databaseLoss() async throws {
        let url = try await PostgresServer.shared.database()
        let name = try #require(url.split(separator: "/").last?.split(separator: "?").first.map(String.init))
        let repo = try ServerTests.quickRepository()
        let served = try await ServedHome(
            bots: ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"],
            config: "executors: 1\ndatabase: {url: '\(url)'}\nhost: build-1\n")
        let port = try await served.server.waitForPort()
        func get(_ path: String) async throws -> (status: Int, retryAfter: String?) {
            let (_, response) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
            let http = try #require(response as? HTTPURLResponse)
            return (http.statusCode, http.value(forHTTPHeaderField: "Retry-After"))
        }
        #expect(try await get("/api/bots/app").status == 200)

        try await PostgresServer.shared.psql("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
        try await PostgresServer.shared.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
        try await served.eventually("the API to answer 503") { try await get("/api/bots/app").status == 503 }
        #expect(try await get("/api/bots/app").retryAfter == "5")
        #expect(try await get("/bots/app").status == 503)

        try await PostgresServer.shared.psql("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
        try await served.eventually("the API to answer again") { try await get("/api/bots/app").status == 200 }
        let trigger = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        #expect(trigger.status == 0, "\(trigger.standardError)")
        let store = try await PostgresStore.open(DatabaseSettings(url: url))
        try await served.eventually("the integration queued after the outage to end") {
            try await store.integrations(bot: "app", limit: 1, before: nil).first?.step == .completed
        }
        _ = try await served.server.terminate()
    }

    @Test("Behind PgBouncer: a host integrates in session mode; transaction mode, where LISTEN cannot hold, is refused in one line")
    func pgBouncer() async throws {
        let url = try await PostgresServer.shared.database()
        let bouncer = try await PgBouncer(for: url)
        defer { bouncer.stop() }
        let repo = try ServerTests.quickRepository()
        let bot = "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
        let served = try await ServedHome(bots: ["app": bot], config: "executors: 1\ndatabase: {url: '\(bouncer.url("session"))'}\n")
        _ = try await served.server.waitForPort()
        let trigger = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        #expect(trigger.status == 0, "\(trigger.standardError)")
        let store = try await PostgresStore.open(DatabaseSettings(url: url))
        try await served.eventually("the integration to end") {
            try await store.integrations(bot: "app", limit: 1, before: nil).first?.step == .completed
        }
        #expect(try await store.integrations(bot: "app", limit: 1, before: nil).first?.result == .buildErrors)
        #expect(try await served.server.terminate().status == 0)

        let home = try TemporaryDirectory()
        try home.write("kiln.yml", "database: {url: '\(bouncer.url("transaction"))'}\n")
        try home.write("Bots/app.yml", bot)
        let refused = try await runProcess(Executables.kiln, ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        #expect(refused.status == 1)
        #expect(refused.standardError.split(separator: "\n").count == 1, "\(refused.standardError)")
        #expect(
            refused.standardError.contains("behind a pooler in transaction or statement mode (PgBouncer's pool_mode = transaction)"),
            "\(refused.standardError)")
        #expect(refused.standardError.contains("pool_mode = session"), "it says what to do: \(refused.standardError)")
    }

    @Test("An unreachable database at start: one line naming the URL without its password, and exit 1")
    func unreachable() async throws {
        let home = try TemporaryDirectory()
        let port = SMTPServer.freePort()
        try home.write("kiln.yml", "database: {url: 'postgres://kiln:hunter2@127.0.0.1:\(port)/kiln'}\n")
        try home.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\n")
        for command in [["serve", "--listen", "127.0.0.1:0"], ["trigger", "app"], ["status"]] {
            let result = try await runProcess(Executables.kiln, command, in: home.path)
            #expect(result.status == 1, "kiln \(command[0])")
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "kiln \(command[0]): \(result.standardError)")
            #expect(result.standardError.contains("postgres://kiln:***@127.0.0.1:\(port)/kiln"), "kiln \(command[0]): \(result.standardError)")
            #expect(result.standardError.contains("Connection refused"), "kiln \(command[0]): \(result.standardError)")
            #expect(!result.standardError.contains("hunter2"))
        }
    }
}
