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
import KilnTestSupport
import Testing

@testable import KilnStore

@Suite("Store: opening and migrating")
struct StoreMigrationTests {
    @Test("A new store is created and migrated: its engine's history, then the migrations both engines share", arguments: Engine.allCases)
    func newStore(engine: Engine) async throws {
        let test = try await TestStore(engine)
        switch test.store {
        case let store as SQLiteStore:
            #expect(try await store.journalMode() == "wal")
            #expect(
                try await store.appliedMigrations() == [
                    "v1", "v2: notifications", "v3: hosts and claims", "v4: pull requests and commit statuses", "v5: one schema",
                    "v6: issue counts by kind", "v7: test history", "v8: quarantined tests", "v9: bisection", "v10: test measurements", "v11: assets",
                    "v12: bisect workspaces", "v13: queue order", "v14: matrix cells", "v15: dependencies", "v16: access", "v17: retention index",
                    "v18: analyzer checks", "v19: reviews", "v20: workspace snapshots", "v21: audit trail", "v22: reasons as data",
                    "v23: mail response code", "v24: bisection failures as data", "v25: reruns", "v26: one outbox", "v27: test progress",
                    "v28: test shards", "v29: approval", "v30: patch coverage", "v31: test shard queue",
                ])
            #expect(try await store.integrityCheck() == "ok")
        case let store as PostgresStore:
            #expect(
                try await store.appliedMigrations() == [
                    "v1", "v2: hosts, claims and logs", "v3: pull requests and commit statuses", "v5: one schema", "v6: issue counts by kind",
                    "v7: test history", "v8: quarantined tests", "v9: bisection", "v10: test measurements", "v11: assets",
                    "v12: bisect workspaces", "v13: queue order", "v14: matrix cells", "v15: dependencies", "v16: access", "v17: retention index",
                    "v18: analyzer checks", "v19: reviews", "v20: workspace snapshots", "v21: audit trail", "v22: reasons as data",
                    "v23: mail response code", "v24: bisection failures as data", "v25: reruns", "v26: one outbox", "v27: test progress",
                    "v28: test shards", "v29: approval", "v30: patch coverage", "v31: test shard queue",
                ])
        default:
            Issue.record("not a store of either engine")
        }
    }

    @Test("A PostgreSQL store never holds more connections than its budget, however many operations wait, and its heartbeat gets through meanwhile")
    func connectionBudget() async throws {
        let url = try await PostgresServer.shared.database()
        let store = try await PostgresStore.open(DatabaseSettings(url: url), connections: 3)
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        let name = String(url.split(separator: "/").last?.split(separator: "?").first ?? "")
        let highest = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        _ = try await store.botOverviews()
                    } else {
                        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
                    }
                    return 0
                }
            }
            group.addTask {
                try await store.heartbeat(HostReport(name: "build-1", version: "1", executors: 1, busy: 0, botsDigest: "", lease: .seconds(30)))
                var highest = 0
                for _ in 0..<10 {
                    let now = try await PostgresServer.shared.query(
                        // The store's clients only: an autovacuum worker on the busy new tables is none, nor
                        // is the backend of this loop's previous psql, which may still be ending.
                        """
                        SELECT count(*) FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()
                            AND backend_type = 'client backend' AND application_name <> 'psql'
                        """,
                        database: url)
                    highest = max(highest, Int(now.first ?? "") ?? 99)
                }
                return highest
            }
            return try await group.reduce(0, max)
        }
        #expect(highest <= 3, "\(highest) connections")
        #expect(try await store.hosts().map(\.name) == ["build-1"])
        store.close()
    }

    @Test("Both engines have the same tables with the same columns (but PostgreSQL's logs, asset bytes and migrations)")
    func oneSchema() async throws {
        let (first, second) = (try await TestStore(.sqlite), try await TestStore(.postgres))
        let sqlite = try #require(first.store as? SQLiteStore)
        let postgres = try #require(second.store as? PostgresStore)
        let sqliteColumns = try await sqlite.read("listing columns") { db in
            try db.rows(
                """
                SELECT m.name AS table_name, p.name AS column_name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p
                WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name NOT LIKE 'grdb_%'
                """
            ).map { "\($0["table_name"] as String).\($0["column_name"] as String)" }
        }
        let postgresColumns = try await postgres.read("listing columns") { db in
            try db.rows(
                """
                SELECT table_name, column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name NOT IN ('log_chunk', 'asset_chunk', 'kiln_migration')
                """
            ).map { "\($0["table_name"] as String).\($0["column_name"] as String)" }
        }
        #expect(sqliteColumns.count > 100)
        #expect(Set(sqliteColumns) == Set(postgresColumns))
    }

    @Test("A database made by the first schema opens, migrates and keeps its history")
    func firstSchemaFixture() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url("kiln.sqlite")
        try FileManager.default.copyItem(atPath: Executables.packageRoot + "/Tests/KilnStoreTests/Fixtures/kiln-v1.sqlite", toPath: path)
        let store = try SQLiteStore.open(path: path)
        #expect(try await store.appliedMigrations().first == "v1")
        let overviews = try await store.botOverviews()
        #expect(overviews.map(\.state.name) == ["app"])
        #expect(overviews.first?.last?.number == 2)
        #expect(overviews.first?.last?.result == .testFailures)
        let summary = try #require(overviews.first?.last?.summary)
        #expect(summary[.testFailure] == 1 && summary.tests == 1 && summary[.error] == 0, "\(summary)")
        #expect(summary.change(.testFailure) != nil, "the changes against #1 are kept")
        let detail = try #require(try await store.integration(bot: "app", number: 2))
        #expect(detail.issues.map(\.status) == [.unresolved])
        #expect(detail.tests.map(\.name) == ["testFails"])
        #expect(detail.commits.map(\.subject) == ["Second"])
        // The sentence the first schema stored as #1's reason is kept, now as a recorded reason's
        // code and text: what a reason is in the store since v22.
        let legacy = "superseded by a newer commit, 0123456789ab"
        #expect(try await store.integration(bot: "app", number: 1)?.integration.reason == .recorded(text: legacy))
        let stored: String? = try await store.read("reading a reason as stored") { try $0.value("SELECT reason FROM integration WHERE number = 1") }
        #expect(
            stored.map(IntegrationReason.init(stored:)) == .recorded(text: legacy) && stored?.hasPrefix(#"{"code":"recorded""#) == true,
            "\(stored ?? "")")
        // New integrations continue the numbering.
        let next = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        #expect(next.integration.number == 3)
    }

    @Test("Hosts starting at once on a new PostgreSQL database migrate it once, and both can use it")
    func postgresMigratesOnce() async throws {
        let settings = DatabaseSettings(url: try await PostgresServer.shared.database())
        async let first = PostgresStore.open(settings, logsDirectory: nil)
        async let second = PostgresStore.open(settings, logsDirectory: nil)
        let stores = try await [first, second]
        for store in stores {
            #expect(
                try await store.appliedMigrations() == [
                    "v1", "v2: hosts, claims and logs", "v3: pull requests and commit statuses", "v5: one schema", "v6: issue counts by kind",
                    "v7: test history", "v8: quarantined tests", "v9: bisection", "v10: test measurements", "v11: assets",
                    "v12: bisect workspaces", "v13: queue order", "v14: matrix cells", "v15: dependencies", "v16: access", "v17: retention index",
                    "v18: analyzer checks", "v19: reviews", "v20: workspace snapshots", "v21: audit trail", "v22: reasons as data",
                    "v23: mail response code", "v24: bisection failures as data", "v25: reruns", "v26: one outbox", "v27: test progress",
                    "v28: test shards", "v29: approval", "v30: patch coverage", "v31: test shard queue",
                ])
        }
        _ = try await stores[0].enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        #expect(try await stores[1].claimNext(owner: "other host", now: Date())?.number == 1)
    }

    @Test("Two processes opening a new store at the same moment migrate it once, and both use it", arguments: Engine.allCases)
    func concurrentFirstOpen(engine: Engine) async throws {
        // The race is in the first milliseconds: both processes wait for one instant to open the
        // store. On SQLite, turning the new file to WAL failed with "database is locked" in about a
        // third of such rounds before the open retried it; ten rounds make it near certain to be met.
        for _ in 0..<10 {
            let directory = try TemporaryDirectory("kiln-store")
            let location = engine == .sqlite ? DataDirectory(directory.path).database : try await PostgresServer.shared.database()
            let environment = ProcessInfo.processInfo.environment.merging(["KILN_STRESS_START": "\(Date().timeIntervalSince1970 + 0.4)"]) { $1 }
            async let first = runProcess(Executables.storeStress, ["cycle", location, "app", "5"], environment: environment)
            async let second = runProcess(Executables.storeStress, ["cycle", location, "app", "5"], environment: environment)
            let outputs = try await [first, second]
            for output in outputs { #expect(output.status == 0, "\(output.standardError)") }
            #expect(outputs.flatMap { $0.standardOutput.split(separator: "\n").compactMap { Int($0) } }.sorted() == Array(1...10))
        }
    }

    @Test("A database in an unwritable place is a clear error")
    func unwritable() {
        #expect {
            try SQLiteStore.open(path: "/proc/kiln/kiln.sqlite")
        } throws: { error in
            "\(error)".hasPrefix("cannot open the database /proc/kiln/kiln.sqlite")
        }
    }
}

@Suite("Store: the queue")
struct QueueTests {
    @Test("Queueing numbers integrations per bot from 1", arguments: Engine.allCases)
    func numbering(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let a1 = try await test.integrate("a", outcome: IntegrationOutcome(result: .succeeded))
        let b1 = try await test.integrate("b", outcome: IntegrationOutcome(result: .succeeded))
        let a2 = try await test.integrate("a", outcome: IntegrationOutcome(result: .succeeded), at: 100)
        let numbers: [Int] = [a1.number, b1.number, a2.number]
        #expect(numbers == [1, 1, 2])
        #expect(a2.step == .completed && a2.result == .succeeded)
    }

    @Test(
        "Queueing for a free executor claims, in its transaction, what the queue gives next: the oldest, this one, or nothing while its bot runs",
        arguments: Engine.allCases)
    func queueingForAFreeExecutor(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let toolchains = [Matrix.defaultToolchain]
        _ = try await test.store.enqueue(QueueRequest(bot: "early", cause: .manual, branch: "main"), now: test.at(0))
        let first = try await test.store.enqueue(
            QueueRequest(bot: "app", cause: .manual, branch: "main"), claimingFor: "build-1 1 1", toolchains: toolchains, now: test.at(1))
        #expect(!first.outcome.coalesced && first.outcome.integration.bot == "app")
        #expect(first.claim?.bot == "early", "the integration queued first is claimed first")
        let second = try await test.store.enqueue(
            QueueRequest(bot: "app", cause: .manual, branch: "main"), claimingFor: "build-1 1 2", toolchains: toolchains, now: test.at(2))
        #expect(second.outcome.coalesced && second.claim?.id == first.outcome.integration.id, "then the one just queued")
        let third = try await test.store.enqueue(
            QueueRequest(bot: "app", cause: .manual, branch: "main"), claimingFor: "build-1 1 2", toolchains: toolchains, now: test.at(3))
        #expect(!third.outcome.coalesced && third.claim == nil, "its bot runs: it waits")
        let app = try await test.store.integrations(bot: "app", limit: 10, before: nil)
        #expect(app.map(\.number) == [2, 1] && app.map(\.step) == [.pending, .checkout])
        #expect(app.last?.host == "build-1", "claimed for the host that queued it")
    }

    @Test("A second trigger while one is queued coalesces into it, moving it to the newest commit", arguments: Engine.allCases)
    func coalescing(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let first = try await test.store.enqueue(QueueRequest(bot: "app", cause: .webhook, commit: "c1", branch: "main"), now: test.at(0))
        let second = try await test.store.enqueue(QueueRequest(bot: "app", cause: .poll, commit: "c2", branch: "main"), now: test.at(1))
        let third = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: test.at(2))
        #expect(!first.coalesced && second.coalesced && third.coalesced)
        #expect(second.integration.id == first.integration.id && third.integration.id == first.integration.id)
        #expect(third.integration.commit == "c2", "a trigger without a commit keeps the newest one")
        #expect(try await test.store.botOverviews().first?.queued.map(\.number) == [1])
        // Once it runs, the next trigger queues a new integration.
        let claimed = try #require(try await test.store.claimNext(owner: "test", now: test.at(3)))
        #expect(claimed.commit == "c2" && claimed.cause == .webhook)
        let fourth = try await test.store.enqueue(QueueRequest(bot: "app", cause: .poll, commit: "c3", branch: "main"), now: test.at(4))
        #expect(!fourth.coalesced && fourth.integration.number == 2)
    }

    @Test("A push of the commit being integrated, or last integrated, reaches that integration; manual triggers run anew", arguments: Engine.allCases)
    func samePush(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let push = QueueRequest(bot: "app", cause: .webhook, commit: "c1", branch: "main")
        let first = try await test.store.enqueue(push, now: test.at(0))
        let running = try #require(try await test.store.claimNext(owner: "test", now: test.at(1)))
        let again = try await test.store.enqueue(push, now: test.at(2))
        #expect(again.coalesced && again.integration.id == running.id)
        try await test.store.complete(running, outcome: IntegrationOutcome(result: .succeeded), now: test.at(3))
        let redelivered = try await test.store.enqueue(push, now: test.at(4))
        #expect(redelivered.coalesced && redelivered.integration.id == first.integration.id)
        let polled = try await test.store.enqueue(QueueRequest(bot: "app", cause: .poll, commit: "c1", branch: "main"), now: test.at(5))
        #expect(polled.coalesced && polled.integration.number == 1)
        let manual = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "c1", branch: "main"), now: test.at(6))
        #expect(!manual.coalesced && manual.integration.number == 2)
        // A canceled integration of that commit does not count as integrated.
        let claimed = try #require(try await test.store.claimNext(owner: "test", now: test.at(7)))
        try await test.store.complete(claimed, outcome: IntegrationOutcome(result: .canceled), now: test.at(8))
        let retried = try await test.store.enqueue(push, now: test.at(9))
        #expect(!retried.coalesced && retried.integration.number == 3)
    }

    @Test("Claiming runs at most one integration per bot, oldest first across bots", arguments: Engine.allCases)
    func claiming(engine: Engine) async throws {
        let test = try await TestStore(engine)
        _ = try await test.store.enqueue(QueueRequest(bot: "b", cause: .manual, branch: "main"), now: test.at(0))
        _ = try await test.store.enqueue(QueueRequest(bot: "a", cause: .manual, branch: "main"), now: test.at(1))
        let first = try #require(try await test.store.claimNext(owner: "test", now: test.at(2)))
        #expect(first.bot == "b" && first.step == .checkout && first.startedAt == test.at(2))
        _ = try await test.store.enqueue(QueueRequest(bot: "b", cause: .manual, branch: "main"), now: test.at(3))
        let second = try #require(try await test.store.claimNext(owner: "test", now: test.at(4)))
        #expect(second.bot == "a")
        let blocked = try await test.store.claimNext(owner: "test", now: test.at(5))
        #expect(blocked == nil, "b's second waits while b's first runs")
        try await test.store.complete(first, outcome: IntegrationOutcome(result: .succeeded), now: test.at(6))
        #expect(try await test.store.claimNext(owner: "test", now: test.at(7))?.number == 2)
    }

    @Test("A newer commit asks the integration running for an older one to stop; the option turns it off", arguments: Engine.allCases)
    func cancelSuperseded(engine: Engine) async throws {
        let test = try await TestStore(engine)
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .webhook, commit: "c1", branch: "main"), now: test.at(0))
        let running = try #require(try await test.store.claimNext(owner: "me", now: test.at(1)))
        let same = try await test.store.enqueue(QueueRequest(bot: "app", cause: .poll, commit: "c1", branch: "main"), now: test.at(2))
        #expect(same.superseded.isEmpty, "the same commit supersedes nothing")
        #expect(try await test.store.stopRequests(for: [running]).isEmpty)
        let newer = try await test.store.enqueue(QueueRequest(bot: "app", cause: .webhook, commit: "c2", branch: "main"), now: test.at(3))
        #expect(newer.superseded == [running.id])
        let requests = try await test.store.stopRequests(for: [running])
        #expect(requests.map(\.id) == [running.id])
        #expect(requests.first?.reason == .superseded(commit: "c2"))
        #expect(requests.first?.lost == nil, "asked to stop is not lost")

        let other = try await TestStore(engine)
        _ = try await other.store.enqueue(QueueRequest(bot: "app", cause: .webhook, commit: "c1", branch: "main"), now: other.at(0))
        let otherRunning = try #require(try await other.store.claimNext(owner: "me", now: other.at(1)))
        let kept = try await other.store.enqueue(
            QueueRequest(bot: "app", cause: .webhook, commit: "c2", branch: "main", cancelSuperseded: false), now: other.at(2))
        #expect(kept.superseded.isEmpty)
        #expect(try await other.store.stopRequests(for: [otherRunning]).isEmpty)
    }

    @Test(
        "One push reaching many bots queues each as it would alone: new, coalesced, superseding, already integrated, and a bot named twice",
        arguments: Engine.allCases)
    func pushToManyBots(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        try await test.integrate("done", outcome: IntegrationOutcome(result: .succeeded), commit: "c2")
        _ = try await store.enqueue(QueueRequest(bot: "busy", cause: .webhook, commit: "c1", branch: "main"), now: test.at(1))
        let running = try #require(try await store.claimNext(owner: "host-1 1 a", now: test.at(2)))
        #expect(running.bot == "busy")
        _ = try await store.enqueue(QueueRequest(bot: "waiting", cause: .manual, branch: "main"), now: test.at(2))
        let push = { (bot: String) in QueueRequest(bot: bot, cause: .webhook, commit: "c2", branch: "main") }
        let fresh = (1...600).map { "bot-\($0)" }
        let requests = fresh.map(push) + ["done", "waiting", "busy", "bot-7"].map(push)
        let delivery = WebhookDelivery(forge: "generic", event: "push", commit: "c2", outcome: .queued, statusCode: 202, receivedAt: test.at(3))
        let receipt = try await store.receiveWebhook(delivery, queue: requests, close: [], now: test.at(3))

        #expect(receipt.queued.count == requests.count)
        #expect(receipt.queued.prefix(600).allSatisfy { !$0.coalesced && $0.integration.number == 1 && $0.integration.commit == "c2" })
        #expect(Set(receipt.queued.prefix(600).map(\.integration.bot)) == Set(fresh), "every new bot queued once, in the order asked")
        let (done, waiting, busy, again) = (receipt.queued[600], receipt.queued[601], receipt.queued[602], receipt.queued[603])
        #expect(done.coalesced && done.integration.number == 1, "the commit it integrated last is not integrated again")
        #expect(waiting.coalesced && waiting.integration.number == 1 && waiting.integration.commit == "c2", "the queued one takes the commit")
        #expect(!busy.coalesced && busy.integration.number == 2 && busy.superseded == [running.id])
        #expect(try await store.stopRequests(for: [running]).first?.reason == .superseded(commit: "c2"))
        #expect(again.coalesced && again.integration.id == receipt.queued[6].integration.id, "a bot named twice coalesces into its own")
        for bot in ["bot-1", "bot-600", "waiting", "busy"] {
            #expect(try await store.integrations(bot: bot, limit: 9, before: nil).filter { $0.step == .pending }.count == 1, "\(bot)")
        }
        #expect(try await store.webhookDeliveries(limit: 1).first?.integrations.count == requests.count)
        // Numbering goes on from where the push left it.
        #expect(try await store.enqueue(QueueRequest(bot: "bot-600", cause: .manual, branch: "main"), now: test.at(4)).integration.number == 1)
        let claim = try #require(try await store.claim(receipt.queued[0].integration.id, owner: "host-1 1 a", now: test.at(5)))
        try await store.complete(claim, outcome: IntegrationOutcome(result: .succeeded), now: test.at(6))
        #expect(try await store.enqueue(QueueRequest(bot: "bot-1", cause: .manual, branch: "main"), now: test.at(7)).integration.number == 2)
    }

    @Test("Many tasks queueing at once: numbers unique and gapless", arguments: Engine.allCases)
    func concurrentTasks(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var done = 0
                    while done < 15 {
                        _ = try await store.enqueue(QueueRequest(bot: "bot\(task % 3)", cause: .manual, branch: "main"), now: Date())
                        guard let claimed = try await store.claimNext(owner: "task\(task)", now: Date()) else { continue }
                        try await store.complete(claimed, outcome: IntegrationOutcome(result: .succeeded), now: Date())
                        done += 1
                    }
                }
            }
            try await group.waitForAll()
        }
        for bot in ["bot0", "bot1", "bot2"] {
            let numbers = try await store.integrations(bot: bot, limit: 1000, before: nil).map(\.number).sorted()
            #expect(!numbers.isEmpty)
            #expect(numbers == Array(1...numbers.count), "\(bot): \(numbers)")
        }
        #expect(try await store.botOverviews().allSatisfy { $0.queued.count <= 1 && $0.running.isEmpty })
    }

    @Test("Two real processes on one store: numbers unique and gapless", arguments: Engine.allCases)
    func twoProcesses(engine: Engine) async throws {
        let test = try await TestStore(engine)
        async let first = runProcess(Executables.storeStress, ["cycle", test.location, "app", "40"])
        async let second = runProcess(Executables.storeStress, ["cycle", test.location, "app", "40"])
        let outputs = try await [first, second]
        for output in outputs { #expect(output.status == 0, "\(output.standardError)") }
        let printed = outputs.flatMap { $0.standardOutput.split(separator: "\n").compactMap { Int($0) } }.sorted()
        #expect(printed == Array(1...80))
        #expect(try await test.store.integrations(bot: "app", limit: 1000, before: nil).map(\.number).sorted() == Array(1...80))
        if let store = test.store as? SQLiteStore { #expect(try await store.integrityCheck() == "ok") }
    }
}
