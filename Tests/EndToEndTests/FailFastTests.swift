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

/// A failure read from the test output as it streams, on a real package under `kiln serve`:
/// told at once (the forge stand-in's statuses, the JSON), and with `test.fail-fast` ending the
/// testing step there, the tests after it recorded as not run.
@Suite("Failures read as they stream; fail-fast ends the testing step at the first")
struct FailFastTests {
    @Test(
        "A failure nothing predicted is told while the suite runs; fail-fast stops at it (XCTest's, then Swift Testing's) and names the tests not run, each test once"
    )
    func failFast() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        // XCTest runs before Swift Testing: its failure comes first, a slow Swift Testing test after.
        try repo.commit(
            "Break a test, add a slow one",
            files: [
                "Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: true),
                "Tests/LibSwiftTests/LibSwiftTests.swift": FailedFirstTests.swiftTests(slow: 20),
            ])
        let statusForge = try await FailedFirstTests.StatusForge.start()
        let (forge, forgeLine) = (statusForge.double, statusForge.line)
        let served = try await ServedHome(
            bots: [
                "app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {fail-fast: true}\n",
                "watch": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {fail-fast: pull-requests}\n" + forgeLine,
            ],
            config: "executors: 2\npublic-url: https://ci.example.com/\n", seeded: ["app"])
        let first = try repo.head()
        func trigger(_ bot: String) async throws {
            let queued = try await runProcess(Executables.kiln, ["trigger", bot], in: served.home.path)
            #expect(queued.status == 0, "\(queued.standardError)")
        }
        try await trigger("app")
        try await trigger("watch")

        // `watch` (fail-fast only for pull requests; this is a branch): nothing failed before, yet
        // the failure is known from its line while the slow test still runs.
        try await served.eventually("watch #1 failing while its slow test runs", timeout: .seconds(240)) {
            guard let running = try await served.integrations("watch").first else { return false }
            #expect(running.step != .completed, "#1 ended before its failure was shown: \(running)")
            return running.progress?.failed == 1
        }
        let calls = try await forge.waitForCalls(timeout: .seconds(120)) { calls in
            calls.contains { $0.sha == first && $0.state == "failure" && !$0.description.contains("so far") }
        }
        let told = calls.filter { $0.sha == first }.map { "\($0.state): \($0.description)" }
        let early = try #require(told.firstIndex { $0.hasPrefix("failure: 1 test failing so far") }, "\(told)")
        #expect(early < told.count - 1, "the failure was told before the end: \(told)")

        try await served.eventually("both first integrations", timeout: .seconds(240)) {
            try await (served.integrations("app") + served.integrations("watch")).filter { $0.step == .completed }.count == 2
        }
        let store = try served.store()
        func results(_ detail: IntegrationDetail) -> [String: TestStatus] {
            Dictionary(detail.tests.map { ("\($0.suite).\($0.name)", $0.status) }) { first, _ in first }
        }
        let watched = try #require(try await store.integration(bot: "watch", number: 1))
        #expect(watched.tests.count == 5 && !watched.tests.contains { $0.status == .notRun }, "a branch runs every test: \(results(watched))")

        // `app` (fail-fast): XCTest's failure ended the run; Swift Testing's tests never started.
        let stopped = try #require(try await store.integration(bot: "app", number: 1))
        #expect(stopped.integration.result == .testFailures)
        #expect(results(stopped)["MathTests.testMaybeFails"] == .failed, "\(results(stopped))")
        #expect(results(stopped)["LibSwiftTests.Slow.waits()"] == .notRun, "\(results(stopped))")
        // Swift Testing's quick tests may end in the moment between XCTest's failure line and the
        // stop reaching the process (on a busy host they did): those are recorded as passed, never
        // as not run, and the slow one never ends.
        let swiftTesting = stopped.tests.filter { !$0.suite.hasSuffix("MathTests") }
        #expect(swiftTesting.count == 3 && swiftTesting.allSatisfy { $0.status == .notRun || $0.status == .passed }, "\(results(stopped))")
        #expect(Set(stopped.tests.map(\.key)).count == 5 && stopped.tests.count == 5, "each test once: \(results(stopped))")
        #expect(stopped.integration.summary?.tests == stopped.tests.filter { $0.status != .notRun }.count, "the summary counts what ran")
        let port = try await served.server.waitForPort()
        let json = try await PullRequestTests.get("/api/bots/app/integrations/1", port: port)
        #expect(json.contains(#""status":"not-run""#), "\(json)")
        let page = try await PullRequestTests.get("/bots/app/integrations/1", port: port)
        #expect(page.contains("tests not run (fail-fast)"), "\(page)")
        let log = try String(contentsOfFile: served.home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        #expect(log.contains("was stopped at the first failure (test.fail-fast)"), "\(log)")

        // XCTest mended, a Swift Testing test broken: the one that failed runs first and passes;
        // then Swift Testing's failure stops the rest while the slow test runs.
        try repo.commit(
            "Mend XCTest, break Swift Testing",
            files: [
                "Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: false),
                "Tests/LibSwiftTests/LibSwiftTests.swift": FixturePackage.swiftTests(failing: true)
                    + "\n@Suite struct Slow {\n    @Test func waits() async throws { try await Task.sleep(for: .seconds(60)) }\n}\n",
            ])
        try await trigger("app")
        try await served.eventually("app #2", timeout: .seconds(240)) {
            try await served.integrations("app").first { $0.number == 2 }?.step == .completed
        }
        let second = try #require(try await store.integration(bot: "app", number: 2))
        let secondResults = results(second)
        #expect(second.integration.result == .testFailures)
        #expect(secondResults["MathTests.testMaybeFails"] == .passed, "\(secondResults)")
        let broken = try #require(second.tests.first { $0.name.hasPrefix("addsAgain()") }, "\(secondResults)")
        #expect(broken.status == .failed && broken.message?.contains("Expectation failed") == true, "\(broken)")
        let secondLog = try String(contentsOfFile: served.home.url(".kiln/logs/app/2.log"), encoding: .utf8)
        #expect(secondResults["LibSwiftTests.Slow.waits()"] == .notRun, "\(secondResults)\n\(secondLog)")
        #expect(Set(second.tests.map(\.key)).count == 5 && second.tests.count == 5, "each test once: \(secondResults)")
    }
}
