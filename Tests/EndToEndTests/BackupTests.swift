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

@Suite("kiln backup: a copy taken while the server records, which a server opens as it is")
struct BackupTests {
    @Test(
        "A backup taken during 1,000 webhooks and their integrations: integrity ok, every integration completed before it with its log; a server started on it serves them"
    )
    func whileServing() async throws {
        let repos = try (1...10).map { _ in try ServerTests.quickRepository() }
        let home = try TemporaryDirectory()
        try home.write("secret", "s3cret")
        try home.write("kiln.yml", "executors: 2\nwebhooks: {secret-file: secret}\n")
        var bots: [String: String] = [:]
        for (index, repo) in repos.enumerated() {
            bots["bot-\(index)"] = "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
        }
        for (name, text) in bots { try home.write("Bots/\(name).yml", text) }
        let server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        let port = try await server.waitForPort()
        let served = ServedHome(home: home, server: server)
        let heads = try repos.map { try $0.head() }
        let pushes = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                var statuses: [Int] = []
                for index in 0..<1_000 {
                    if index >= 8, let status = try await group.next() { statuses.append(status) }
                    let repo = index % repos.count
                    group.addTask { try await pushWebhook(port: port, secret: "s3cret", repository: repos[repo].url, commit: heads[repo]) }
                }
                for try await status in group { statuses.append(status) }
                return statuses
            }
        }

        // Well into the flood, with integrations completed: what the copy must hold.
        let store = try served.store()
        try await served.eventually("webhooks and integrations to be recorded", timeout: .seconds(120)) {
            let delivered = try await store.webhookDeliveries(limit: 1_000).count
            let completed = try await Self.completed(store, bots: bots.keys).count
            return delivered >= 200 && completed >= 4
        }
        let completed = try await Self.completed(store, bots: bots.keys)
        let delivered = try await store.webhookDeliveries(limit: 1_000).count
        let destination = try TemporaryDirectory()
        let backup = try await runProcess(Executables.kiln, ["backup", destination.url("copy")], in: home.path)
        #expect(backup.status == 0, "\(backup.standardError)")
        #expect(backup.standardOutput.contains("integrity ok"), "\(backup.standardOutput)")
        let statuses = try await pushes.value
        #expect(statuses.count == 1_000 && statuses.allSatisfy { $0 == 202 }, "\(Set(statuses))")
        #expect(try await store.webhookDeliveries(limit: 2_000).count == 1_000, "the flood went on around the backup")

        let copy = try SQLiteStore.open(dataDirectory: destination.url("copy"))
        #expect(try await copy.integrityCheck() == "ok")
        #expect(try await copy.webhookDeliveries(limit: 2_000).count >= delivered)
        for (bot, number) in completed {
            let kept = try await copy.integration(bot: bot, number: number)?.integration
            #expect(kept?.step == .completed && kept?.result != nil, "\(bot) #\(number) completed before the backup")
            let log = destination.url("copy/logs/\(bot)/\(number).log")
            #expect(FileManager.default.fileExists(atPath: log), "\(bot) #\(number)'s log")
        }
        let again = try await runProcess(Executables.kiln, ["backup", destination.url("copy")], in: home.path)
        #expect(again.status == 1 && again.standardError.contains("is not empty"), "\(again.standardError)")
        _ = try await server.terminate()

        // Restoring: a server started on the copy, as it is, serves what it holds.
        let restored = try TemporaryDirectory()
        try restored.write("kiln.yml", "executors: 1\ndata: \(destination.url("copy"))\n")
        for (name, text) in bots { try restored.write("Bots/\(name).yml", text) }
        let second = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: restored.path)
        let restoredPort = try await second.waitForPort()
        for (bot, number) in completed.prefix(3) {
            let (body, response) = try await URLSession.shared.data(
                from: try #require(URL(string: "http://127.0.0.1:\(restoredPort)/bots/\(bot)/integrations/\(number)/log")))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(!body.isEmpty, "\(bot) #\(number)'s log served from the copy")
        }
        _ = try await second.terminate()
    }

    @Test("With PostgreSQL, kiln backup says to use pg_dump and copies nothing")
    func postgres() async throws {
        let home = try TemporaryDirectory()
        try home.write("kiln.yml", "database: {url: 'postgres://kiln:hunter2@db.example.com/kiln'}\n")
        let backup = try await runProcess(Executables.kiln, ["backup", home.url("copy")], in: home.path)
        #expect(
            backup.status == 0 && backup.standardOutput.contains("pg_dump") && !backup.standardOutput.contains("hunter2"), "\(backup.standardOutput)")
        #expect(!FileManager.default.fileExists(atPath: home.url("copy")))
    }

    /// The integrations of `bots` that have completed, by bot and number.
    static func completed(_ store: SQLiteStore, bots: some Sequence<String>) async throws -> [(String, Int)] {
        var completed: [(String, Int)] = []
        for bot in bots {
            for integration in try await store.integrations(bot: bot, limit: 1_000, before: nil) where integration.step == .completed {
                completed.append((bot, integration.number))
            }
        }
        return completed
    }
}
