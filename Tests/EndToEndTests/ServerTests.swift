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

import Crypto
import Foundation
import KilnCore
import KilnStore
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `kiln serve` process on a temp home with real repositories.
struct ServedHome {
    let home: TemporaryDirectory
    let server: ServerProcess

    /// `seeded`: the bots among `bots` whose repository is a `FixturePackage` and whose first
    /// integration may start warm from the run's shared build of it (`FixtureSeed`).
    init(bots: [String: String], config: String = "executors: 1\n", environment: [String: String] = [:], seeded: [String] = []) async throws {
        home = try TemporaryDirectory()
        try home.write("kiln.yml", config)
        for (name, text) in bots { try home.write("Bots/\(name).yml", text) }
        for bot in seeded { try await FixtureSeed.shared.install(bot: bot, into: home.url(".kiln")) }
        server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path, environment: environment)
        _ = try await server.waitForPort()
    }

    init(home: TemporaryDirectory, server: ServerProcess) {
        self.home = home
        self.server = server
    }

    func store() throws -> SQLiteStore { try SQLiteStore.open(dataDirectory: home.url(".kiln")) }

    func integrations(_ bot: String) async throws -> [Integration] { try await store().integrations(bot: bot, limit: 100, before: nil) }

    /// Waits until `condition` holds, checking every 100 ms; on a timeout, shows the server's output.
    func eventually(_ what: String, timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
        try await EndToEndTests.eventually(what, timeout: timeout, context: server.standardOutput, condition)
    }
}

/// Waits until `condition` holds, checking every 100 ms; records `what` (and `context`) as the
/// test's issue and throws when `timeout` passes first.
func eventually(
    _ what: String, timeout: Duration = .seconds(30), context: @autoclosure () -> String = "", _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    // Once more: on a busy machine this task may have woken only after the deadline.
    if try await condition() { return }
    Issue.record("timed out waiting for: \(what)\n\(context())")
    throw CancellationError()
}

@Suite("kiln serve: scheduling and running integrations")
struct ServerTests {
    /// A repository without a package: its integrations end quickly (build-errors), which is all
    /// these tests need to see the scheduling.
    static func quickRepository() throws -> GitFixture {
        let repo = try GitFixture()
        try repo.commit("first", files: ["README.md": "not a package\n"])
        return repo
    }

    @Test("A new commit is integrated within the poll interval; kiln trigger from another process starts at once")
    func pollAndTrigger() async throws {
        let repo = try Self.quickRepository()
        let served = try await ServedHome(bots: ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 10s}\ntest: {enabled: false}\n"])
        try await served.eventually("the first integration") { try await served.integrations("app").first?.step == .completed }
        let first = try #require(try await served.integrations("app").first)
        let head = try repo.head()
        #expect(first.cause == .poll && first.number == 1 && first.commit == head)

        let pushed = try repo.commit("second", files: ["README.md": "still not a package\n"])
        let pushedAt = ContinuousClock.now
        // The poll (every 10 s) queues it; how long it then takes to run is the machine's business.
        try await served.eventually("the pushed commit queued", timeout: .seconds(25)) {
            try await served.integrations("app").contains { $0.commit == pushed }
        }
        #expect(ContinuousClock.now - pushedAt < .seconds(20))
        try await served.eventually("the pushed commit integrated", timeout: .seconds(60)) {
            try await served.integrations("app").first { $0.commit == pushed }?.step == .completed
        }

        // kiln trigger from another process: its integration starts without waiting for the next
        // poll (the scheduler hears the queue change, and looks once a second anyway). Timed from
        // when the trigger returned: how long the process took to start is the machine's load.
        let trigger = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        let triggeredAt = ContinuousClock.now
        #expect(trigger.standardOutput == "queued app #3\n")
        try await served.eventually("the manual integration to start", timeout: .seconds(30)) {
            try await served.integrations("app").first { $0.number == 3 }?.step != .pending
        }
        #expect(ContinuousClock.now - triggeredAt < .seconds(9), "before the next poll, 10 s after the last")
        try await served.eventually("the manual integration to end") { try await served.integrations("app").first?.step == .completed }
        let output = try await served.server.terminate()
        #expect(output.status == 0)
    }

    @Test("Two bots on one executor run one after the other; a third trigger while one is queued coalesces")
    func oneExecutor() async throws {
        let repo = try Self.quickRepository()
        // Each integration waits in its before trigger until the test lets it go, so b is still
        // queued when its second trigger arrives, however slowly each kiln trigger starts.
        let gate = try TemporaryDirectory()
        let release = gate.url("release")
        let slow = """
            repository: {url: '\(repo.url)'}
            schedule: {poll: 0}
            test: {enabled: false}
            sandbox: none  # its trigger waits for a file the test makes outside the workspace
            triggers: [{name: wait, phase: before, run: 'until [ -e \(release) ]; do sleep 0.1; done; sleep 0.5'}]

            """
        let served = try await ServedHome(bots: ["a": slow, "b": slow])
        for bot in ["a", "b", "b"] { _ = try await runProcess(Executables.kiln, ["trigger", bot], in: served.home.path) }
        try gate.write("release", "")
        try await served.eventually("both integrations") {
            let a = try await served.integrations("a").first?.step
            let b = try await served.integrations("b").first?.step
            return a == .completed && b == .completed
        }
        let a = try #require(try await served.integrations("a").first)
        let b = try #require(try await served.integrations("b").first)
        #expect(try await served.integrations("b").count == 1, "the second trigger of b joined the queued one")
        let aStart = try #require(a.startedAt)
        let bStart = try #require(b.startedAt)
        let (earlier, later) = aStart < bStart ? (a, b) : (b, a)
        let laterStart = try #require(later.startedAt)
        let earlierEnd = try #require(earlier.endedAt)
        #expect(laterStart >= earlierEnd, "one executor runs one integration at a time")
        _ = try await served.server.terminate()
    }

    @Test("Bot files added, broken, fixed and deleted while serving take effect within seconds")
    func liveReload() async throws {
        let repo = try Self.quickRepository()
        let bot = "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
        let served = try await ServedHome(bots: ["app": bot])
        func status() async throws -> [String: String] {
            let result = try await runProcess(Executables.kiln, ["status", "--json"], in: served.home.path)
            let bots = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]] ?? []
            return Dictionary(uniqueKeysWithValues: bots.compactMap { bot in (bot["name"] as? String).map { ($0, bot["status"] as? String ?? "") } })
        }
        try served.home.write("Bots/new.yml", bot)
        try await served.eventually("the added bot", timeout: .seconds(5)) { try await status()["new"] == "idle" }
        try served.home.write("Bots/new.yml", bot + "timeout: soon\n")
        try await served.eventually("the broken bot", timeout: .seconds(5)) { try await status()["new"] == "broken" }
        await #expect(try status()["app"] == "idle", "the other bot keeps running")
        try served.home.write("Bots/new.yml", bot + "timeout: 5m\n")
        try await served.eventually("the fixed bot", timeout: .seconds(5)) { try await status()["new"] == "idle" }
        try FileManager.default.removeItem(atPath: served.home.url("Bots/new.yml"))
        try await served.eventually("the deleted bot", timeout: .seconds(5)) { try await status()["new"] == nil }
        _ = try await served.server.terminate()
    }

    @Test("SIGTERM during an integration ends it as canceled, leaves no process behind, and exits")
    func gracefulShutdown() async throws {
        let repo = try Self.quickRepository()
        let served = try await ServedHome(bots: [
            "app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntriggers: [{name: stall, phase: before, run: 'sleep 321'}]\n"
        ])
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        try await served.eventually("the trigger to run", timeout: .seconds(10)) {
            try await served.integrations("app").first?.step == .beforeTriggers
        }
        try await Task.sleep(for: .milliseconds(300))
        let stopping = ContinuousClock.now
        let output = try await served.server.terminate()
        #expect(output.status == 0)
        #expect(ContinuousClock.now - stopping < .seconds(10))
        let ended = try #require(try await served.integrations("app").first)
        #expect(ended.step == .completed && ended.result == .canceled)
        #expect(try await leftoverProcesses(matching: "sleep 321").isEmpty)
    }

    @Test("The server applies retention: older integrations keep their summary but lose their log")
    func retention() async throws {
        let repo = try Self.quickRepository()
        let served = try await ServedHome(
            bots: ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n"],
            config: "executors: 1\nretention: {integrations: 1}\n")
        for number in 1...2 {
            _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
            try await served.eventually("integration \(number)") {
                try await served.integrations("app").first { $0.number == number }?.step == .completed
            }
        }
        try await served.eventually("retention") { try await served.integrations("app").last?.expired == true }
        #expect(!FileManager.default.fileExists(atPath: served.home.url(".kiln/logs/app/1.log")))
        #expect(FileManager.default.fileExists(atPath: served.home.url(".kiln/logs/app/2.log")))
        #expect(try await served.integrations("app").last?.result == .buildErrors, "the summary stays")
        _ = try await served.server.terminate()
    }
}

@Suite("kiln serve: webhooks and pages")
struct ServedWebTests {
    @Test("A signed push webhook is answered 202 and its integration runs; the pages show it")
    func webhookToIntegration() async throws {
        let repo = try ServerTests.quickRepository()
        let secretHome = try TemporaryDirectory()
        let secretFile = try secretHome.write("secret", "s3cret\n")
        let home = try TemporaryDirectory()
        try home.write("kiln.yml", "executors: 1\nwebhooks: {secret-file: '\(secretFile)'}\n")
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\n")
        let server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        let port = try await server.waitForPort()
        let served = ServedHome(home: home, server: server)

        let head = try repo.head()
        let body = Data(#"{"repository": "\#(repo.url)", "branch": "main", "commit": "\#(head)"}"#.utf8)
        let signature =
            "sha256="
            + HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data("s3cret".utf8)))
            .map { String(format: "%02x", $0) }.joined()
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/hooks/generic")))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue(signature, forHTTPHeaderField: "X-Kiln-Signature")
        let (answer, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 202, "\(String(decoding: answer, as: UTF8.self))")

        try await served.eventually("the webhook's integration") { try await served.integrations("app").first?.step == .completed }
        let integration = try #require(try await served.integrations("app").first)
        #expect(integration.cause == .webhook && integration.commit == head && integration.number == 1)

        let (page, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/1")))
        #expect(String(decoding: page, as: UTF8.self).contains("webhook"))
        let (log, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/1/log")))
        #expect(String(decoding: log, as: UTF8.self).contains("=== checkout"))
        let output = try await server.terminate()
        #expect(output.status == 0)
    }
}

@Suite("kiln serve: mail")
struct ServedMailTests {
    @Test("After an integration, kiln serve mails its report to a real SMTP server, with a link to the page")
    func reportMail() async throws {
        let smtp = try await SMTPServer.start()
        let repo = try ServerTests.quickRepository()
        let served = try await ServedHome(
            bots: [
                "app": """
                repository: {url: '\(repo.url)'}
                schedule: {poll: 0}
                test: {enabled: false}
                triggers: [{email: report, every: integration, to: [team@example.com]}]

                """
            ],
            config: "executors: 1\npublic-url: http://ci.example.com\nsmtp: {url: '\(smtp.url)', from: 'Kiln <kiln@example.com>'}\n")
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        let mail = try #require(try await smtp.waitForMessages(1, timeout: .seconds(30)).first)
        #expect(mail.subject == "[app] #1 build-errors")
        #expect(mail.from == "kiln@example.com" && mail.to == ["team@example.com"])
        #expect(mail.parts["text/plain"]?.contains("http://ci.example.com/bots/app/integrations/1") == true)
        let status = try await runProcess(Executables.kiln, ["status"], in: served.home.path)
        #expect(status.standardOutput.contains("mail: 0 queued, 0 failed, 1 sent"))
        _ = try await served.server.terminate()
    }
}
