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

/// `test.order: failed-first` on a real package under `kiln serve`, its commit statuses taken by
/// a forge stand-in: a failure still there is told before the suite ends.
@Suite("Failed tests first: the failure known before the suite ends")
struct FailedFirstTests {
    /// Swift Testing's tests, with one that takes `seconds`: the rest of the suite is slow.
    static func swiftTests(slow seconds: Int) -> String {
        FixturePackage.swiftTests() + """

            @Suite struct Slow {
                @Test func waits() async throws { try await Task.sleep(for: .seconds(\(seconds))) }
            }

            """
    }

    /// A forge stand-in, the bot file's line that sends it the commit statuses, and the directory
    /// that holds its token.
    struct StatusForge {
        let double: ForgeDouble
        let line: String
        let directory: TemporaryDirectory

        static func start() async throws -> StatusForge {
            let forge = try await ForgeDouble.start()
            let directory = try TemporaryDirectory()
            try directory.write("token", forge.token + "\n")
            let line = "forge: {kind: github, api-url: '\(forge.apiURL)', token-file: '\(directory.url("token"))'}\n"
            return StatusForge(double: forge, line: line, directory: directory)
        }
    }

    @Test(
        "The test that failed last time runs first: the status turns failure and the JSON shows it while the rest still runs; each test once, as a plain run has them"
    )
    func failureKnownAtOnce() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit("Break a test", files: ["Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: true)])
        let statusForge = try await StatusForge.start()
        let (forge, forgeLine) = (statusForge.double, statusForge.line)
        let served = try await ServedHome(
            bots: [
                "app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\n" + forgeLine,
                "plain": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {order: as-written}\n",
            ],
            config: "executors: 2\npublic-url: https://ci.example.com/\n", seeded: ["app"])
        func trigger() async throws {
            for bot in ["app", "plain"] {
                let queued = try await runProcess(Executables.kiln, ["trigger", bot], in: served.home.path)
                #expect(queued.status == 0, "\(queued.standardError)")
            }
        }
        try await trigger()
        try await served.eventually("the first integrations", timeout: .seconds(180)) {
            let ended = try await (served.integrations("app") + served.integrations("plain")).filter { $0.step == .completed }
            return ended.count == 2
        }
        #expect(try await served.integrations("app").first?.result == .testFailures)

        // The failure stays; a slow test joins the suite.
        let head = try repo.commit("A slow test", files: ["Tests/LibSwiftTests/LibSwiftTests.swift": Self.swiftTests(slow: 8)])
        try await trigger()
        try await served.eventually("#2 failing while its slow test runs", timeout: .seconds(180)) {
            guard let running = try await served.integrations("app").first(where: { $0.number == 2 }) else { return false }
            #expect(running.step != .completed, "#2 ended before its failure was shown: \(running)")
            return running.progress?.failed == 1
        }
        // The page and the JSON say it while the slow test still runs.
        let port = try await served.server.waitForPort()
        let page = try await PullRequestTests.get("/bots/app/integrations/2", port: port)
        #expect(page.contains("1 test failing so far, of 1 run; the others are still running"), "\(page)")
        let json = try await PullRequestTests.get("/api/bots/app/integrations/2", port: port)
        #expect(json.contains(#""progress":{"failed":1,"tests":1}"#) || json.contains(#""progress":{"tests":1,"failed":1}"#), "\(json)")
        let calls = try await forge.waitForCalls(timeout: .seconds(120)) { calls in
            calls.contains { $0.sha == head && $0.state == "failure" && !$0.description.contains("so far") }
        }
        let mine = calls.filter { $0.sha == head }.map { "\($0.state): \($0.description)" }
        let early = try #require(mine.firstIndex { $0.hasPrefix("failure: 1 test failing so far") }, "\(mine)")
        #expect(early < mine.count - 1 && mine.last?.hasPrefix("failure: ") == true, "the failure was told before the end: \(mine)")

        try await served.eventually("both integrations of the slow test", timeout: .seconds(120)) {
            try await (served.integrations("app") + served.integrations("plain")).filter { $0.step == .completed && $0.commit == head }.count == 2
        }
        let store = try served.store()
        let app = try #require(try await store.integration(bot: "app", number: 2))
        let plainNumber = try #require(try await served.integrations("plain").first { $0.commit == head }?.number)
        let plain = try #require(try await store.integration(bot: "plain", number: plainNumber))
        let log = try String(contentsOfFile: served.home.url(".kiln/logs/app/2.log"), encoding: .utf8)
        #expect(log.contains("first, the 1 test that failed or were flaky in #1: MathTests.testMaybeFails"), "\(log)")
        #expect(log.contains("this change touched: ") && log.contains("LibSwiftTests.Slow.waits()"), "the new test runs first: \(log)")
        #expect(log.contains("then every other test"))
        func results(_ detail: IntegrationDetail) -> [String] { detail.tests.map { "\($0.suite).\($0.name) \($0.status.rawValue)" }.sorted() }
        #expect(results(app) == results(plain), "the same tests and results as one plain `swift test`")
        #expect(Set(results(app)).count == app.tests.count && app.tests.count == 5, "each test once: \(results(app))")
        #expect(app.integration.summary?.tests == plain.integration.summary?.tests && app.integration.result == .testFailures)
        #expect(!(try String(contentsOfFile: served.home.url(".kiln/logs/plain/\(plainNumber).log"), encoding: .utf8)).contains("first, the"))
    }
}
