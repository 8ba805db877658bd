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

@Suite("kiln migrate: moving an installation from SQLite to PostgreSQL")
struct MigrateTests {
    /// A data directory with some history: integrations with issues, tests, commits, triggers and
    /// logs (one of them binary), one still queued, a mail in the outbox, a webhook delivery.
    static func installation() async throws -> TemporaryDirectory {
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: 'https://example.com/app.git'}\nschedule: {poll: 0}\n")
        let store = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        try await store.syncBots(
            [
                BotState(name: "app", file: "Bots/app.yml", repository: "https://example.com/app.git", branch: "main"),
                BotState(name: "old", file: "Bots/old.yml", repository: "", branch: "main", problems: ["Bots/old.yml:1:1: error: broken"]),
            ], now: t0)
        let author = Commit(
            sha: String(repeating: "a", count: 40), author: "Alice", email: "alice@example.com", date: t0, subject: "Start – with ünïcode")
        try await store.record(
            "app",
            outcome: IntegrationOutcome(
                result: .succeeded, tests: [TestCase(suite: "AppTests", name: "adds", status: .passed, duration: 0.25)], coverage: 0.875,
                commits: [author]),
            commit: author.sha, at: t0, steps: [.checkout, .building, .testing], log: "=== checkout\nfirst log\n")
        try await store.record(
            "app",
            outcome: IntegrationOutcome(
                result: .warnings,
                tests: [
                    TestCase(
                        suite: "AppTests", name: "adds", status: .failed, duration: 0.5, message: "1 != 2", file: "Tests/AppTests.swift", line: 7)
                ],
                issues: [IntegrationIssue(type: .warning, message: "var never mutated", file: "Sources/App/main.swift", line: 3, fingerprint: "w1")],
                triggers: [TriggerRun(name: "notify", phase: .after, exitStatus: 0, duration: 0.1)]),
            at: t0.addingTimeInterval(60), steps: [.checkout, .building], log: "=== build\nwarning: var never mutated\n\u{1B}[31mred\u{1B}[0m\n")
        try await store.record(
            "app",
            outcome: IntegrationOutcome(
                result: .buildErrors, issues: [.init(type: .error, message: "no such module", file: nil, line: nil, fingerprint: "e1")]),
            at: t0.addingTimeInterval(120), log: String(repeating: "long line of output\n", count: 120_000))
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: nil, branch: "main"), now: t0.addingTimeInterval(180))
        _ = try await store.queueMail(
            OutgoingMail(
                dedupeKey: "report-1", bot: "app", recipients: ["team@example.com"], subject: "Report",
                message: Array("Subject: Report\r\n\r\nbody\r\n".utf8)), now: t0)
        _ = try await store.receiveWebhook(
            WebhookDelivery(forge: "github", event: "ping", outcome: .ignored, statusCode: 202, detail: "not a push", receivedAt: t0), queue: [],
            now: t0)
        return home
    }

    @Test(
        "Everything is copied and verified: the same history, logs, outbox and deliveries there, numbering continues, and kiln serve on it shows the old integrations"
    )
    func roundTrip() async throws {
        let home = try await Self.installation()
        let token = try await runProcess(Executables.kiln, ["token", "add", "ops", "--role", "admin"], in: home.path)
        #expect(token.status == 0, "\(token.standardError)")
        let url = try await PostgresServer.shared.database()
        let migrate = try await runProcess(Executables.kiln, ["migrate", "--to", url], in: home.path)
        #expect(migrate.status == 0, "\(migrate.standardError)")
        let counts = migrate.standardOutput.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(counts.contains("integration 4"), "\(migrate.standardOutput)")
        #expect(counts.contains { $0.hasPrefix("logs 3 (") }, "\(migrate.standardOutput)")
        #expect(migrate.standardOutput.contains("database:\n    url: \(url)"))

        let sqlite = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        let postgres = try await PostgresStore.open(DatabaseSettings(url: url))
        #expect(try await postgres.botOverviews() == (try await sqlite.botOverviews()))
        let copied = try await postgres.integrations(bot: "app", limit: 10, before: nil)
        #expect(copied.count == 4)
        #expect(copied == (try await sqlite.integrations(bot: "app", limit: 10, before: nil)))
        for number in 1...4 {
            #expect(
                try await postgres.integration(bot: "app", number: number) == (try await sqlite.integration(bot: "app", number: number)),
                "integration #\(number)")
            #expect(
                try await postgres.readLog(bot: "app", number: number, from: 0, limit: 4 << 20)
                    == (try await sqlite.readLog(bot: "app", number: number, from: 0, limit: 4 << 20)))
        }
        #expect(try await postgres.logSize(bot: "app", number: 3) == 120_000 * 20, "a log longer than a chunk")
        #expect(try await postgres.outbox(limit: 10) == (try await sqlite.outbox(limit: 10)))
        #expect(try await postgres.webhookDeliveries(limit: 10) == (try await sqlite.webhookDeliveries(limit: 10)))
        let moved = try await postgres.tokenHashes().map { "\($0.hash) \($0.token)" }
        #expect(moved == (try await sqlite.tokenHashes().map { "\($0.hash) \($0.token)" }) && moved.count == 1, "tokens move, as hashes")
        let trail = try await postgres.auditEvents(since: nil, limit: 10)
        #expect(trail == (try await sqlite.auditEvents(since: nil, limit: 10)) && trail.map(\.action) == [.tokenAdded], "the audit trail moves")

        // The queued integration is still queued there; ids and numbers go on from the copy's.
        let queued = try #require(try await postgres.claimNext(owner: "test", now: Date()), "the queued integration moved as queued")
        #expect(queued.number == 4)
        _ = try await postgres.complete(queued, outcome: IntegrationOutcome(result: .canceled), now: Date())
        let next = try await postgres.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "b", branch: "main"), now: Date())
        #expect(next.integration.number == 5)
        #expect(next.integration.id == copied.map(\.id).max().map { $0 + 1 })

        // A second migrate into the same database copies nothing.
        let again = try await runProcess(Executables.kiln, ["migrate", "--to", url], in: home.path)
        #expect(again.status == 1)
        #expect(
            again.standardError.contains(
                "is not empty (access_token: 1 rows, audit_event: 1 rows, bot: 2 rows, delivery: 1 rows, integration: 5 rows"),
            "\(again.standardError)")
        #expect(try await postgres.integrations(bot: "app", limit: 10, before: nil).count == 5)

        // kiln serve on the database shows the moved history.
        try home.write("kiln.yml", "executors: 1\ndatabase: {url: '\(url)'}\n")
        let server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        let port = try await server.waitForPort()
        let (page, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/2")))
        #expect(String(decoding: page, as: UTF8.self).contains("var never mutated"))
        let (log, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/1/log")))
        #expect(String(decoding: log, as: UTF8.self) == "=== checkout\nfirst log\n")
        _ = try await server.terminate()
    }

    @Test(
        "Refused with a sentence, copying nothing: while a server holds the data directory, without a store to move, and to an unreachable database")
    func refusals() async throws {
        let home = try await Self.installation()
        let url = try await PostgresServer.shared.database()
        // flock(1) holds the lock as a running server would, while kiln migrate tries to take it.
        let held = try await runProcess("/usr/bin/flock", [".kiln/serve.lock", Executables.kiln, "migrate", "--to", url], in: home.path)
        #expect(held.status == 1)
        #expect(held.standardError.contains("the data directory \(home.url(".kiln")) is in use"), "\(held.standardError)")
        let postgres = try await PostgresStore.open(DatabaseSettings(url: url))
        #expect(try await postgres.botOverviews().isEmpty)

        let empty = try TemporaryDirectory()
        let none = try await runProcess(Executables.kiln, ["migrate", "--to", url], in: empty.path)
        #expect(none.status == 1)
        #expect(
            none.standardError
                == "error: there is no embedded store at \(empty.url(".kiln/kiln.sqlite")): give the data directory of the installation to move (--data)\n"
        )

        let port = SMTPServer.freePort()
        let unreachable = try await runProcess(Executables.kiln, ["migrate", "--to", "postgres://kiln:secret@127.0.0.1:\(port)/kiln"], in: home.path)
        #expect(unreachable.status == 1)
        #expect(
            unreachable.standardError.hasPrefix("error: cannot use the database postgres://kiln:***@127.0.0.1:\(port)/kiln"),
            "\(unreachable.standardError)")
    }
}
