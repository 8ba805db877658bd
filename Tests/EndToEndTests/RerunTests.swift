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

@Suite("Re-runs: a commit again, or only its failed tests")
struct RerunTests {
    static func post(_ path: String, _ json: String, port: Int, token: String) async throws -> (status: Int, text: String) {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(json.utf8)
        let (body, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: body, as: UTF8.self))
    }

    @Test(
        "Run failed tests again runs only those, on the same commit, and says when they did not reproduce; Run again runs the commit whole; the API, kiln trigger --rerun and the audit trail agree"
    )
    func rerunFailedThenAll() async throws {
        let package = try FixturePackage()
        let served = try await ServedHome(
            bots: [
                "app": "repository: {url: '\(package.repository.url)'}\nschedule: {poll: 0}\ntest: {retries: 0}\n"
            ], seeded: ["app"])
        let home = served.home
        let plans = (home.url(".kiln/homes/app/plan-xctest"), home.url(".kiln/homes/app/plan-steady"), home.url(".kiln/homes/app/plan-swift"))
        try package.repository.commit(
            "Tests that follow a plan",
            files: FlakyTestTests.plannedTests(xctest: plans.0, steady: plans.1, swiftTesting: plans.2))
        let failing = try package.repository.head()
        func plan(xctest: [String], steady: [String]) throws {
            try home.write(".kiln/homes/app/plan-xctest", xctest.joined(separator: "\n"))
            try home.write(".kiln/homes/app/plan-steady", steady.joined(separator: "\n"))
            try home.write(".kiln/homes/app/plan-swift", "")
        }
        let port = try await served.server.waitForPort()
        let made = try await runProcess(Executables.kiln, ["token", "add", "alice", "--role", "member"], in: home.path)
        let token = try #require(made.standardOutput.split(separator: "\n").last.map(String.init))
        let store = try served.store()
        func completed(_ number: Int) async throws -> IntegrationDetail {
            try await served.eventually("#\(number) completed", timeout: .seconds(300)) {
                try await store.integration(bot: "app", number: number)?.integration.step == .completed
            }
            return try #require(try await store.integration(bot: "app", number: number))
        }
        func names(_ detail: IntegrationDetail) -> [String] { detail.tests.map(\.name).sorted() }

        // 1. Two tests fail.
        try plan(xctest: ["fail"], steady: ["fail"])
        #expect(try await Self.post("/api/bots/app/integrations", "", port: port, token: token).status == 202)
        let one = try await completed(1)
        #expect(one.integration.result == .testFailures && one.integration.commit == failing)
        #expect(one.tests.count == 5 && one.tests.filter { $0.status == .failed }.count == 2, "\(one.tests)")
        // The branch moves on: a re-run still runs #1's commit.
        try package.repository.commit("Touch the readme", files: ["README.md": "later\n"])

        // 2. Only the failed tests run again; one fails again.
        try plan(xctest: ["fail"], steady: [])
        let failedOnly = try await Self.post("/api/bots/app/integrations", #"{"rerun": 1, "only": "failed"}"#, port: port, token: token)
        #expect(failedOnly.status == 202 && failedOnly.text.contains(#""number":2"#), "\(failedOnly.text)")
        let two = try await completed(2)
        #expect(two.integration.cause == .rerun && two.integration.rerunOf == Rerun(number: 1, only: .failed))
        #expect(two.integration.commit == failing, "the commit of #1, not the branch's head")
        #expect(names(two) == ["testPlanned", "testSteady"], "only the two that failed ran: \(two.tests)")
        #expect(two.integration.summary?.tests == 2)
        #expect(two.integration.result == .testFailures && two.tests.first { $0.name == "testSteady" }?.status == .passed)
        let log = try String(contentsOfFile: home.url(".kiln/logs/app/2.log"), encoding: .utf8)
        #expect(log.contains("=== running the 2 tests that failed in #1 again: "), "\(log.suffix(2000))")

        // 3. Again, and nothing fails: the failures did not reproduce.
        try plan(xctest: [], steady: [])
        #expect(try await Self.post("/api/bots/app/integrations", #"{"rerun": 1, "only": "failed"}"#, port: port, token: token).status == 202)
        let three = try await completed(3)
        #expect(three.integration.result == .succeeded && three.integration.summary?.tests == 2)
        #expect(three.integration.reason == .failuresDidNotReproduce(number: 1))
        let json = try await AccessServeTests.request("GET", "/api/bots/app/integrations/3", port: port, token: token).text
        #expect(json.contains(#""rerunOf":{"number":1,"only":"failed"}"#) && json.contains(#""code":"failures-did-not-reproduce""#), "\(json)")
        #expect(json.contains(#""cause":"rerun""#))

        // 4. Run again: the whole commit, every test.
        #expect(try await Self.post("/api/bots/app/integrations", #"{"rerun": 1}"#, port: port, token: token).status == 202)
        let four = try await completed(4)
        #expect(four.integration.commit == failing && four.integration.rerunOf == Rerun(number: 1, only: .all))
        #expect(four.tests.count == 5 && four.integration.result == .succeeded, "\(four.tests)")

        // 5. What cannot be run again says why.
        let nothing = try await Self.post("/api/bots/app/integrations", #"{"rerun": 4, "only": "failed"}"#, port: port, token: token)
        #expect(nothing.status == 409 && nothing.text.contains("with no failed test or cell"), "\(nothing.text)")
        #expect(try await Self.post("/api/bots/app/integrations", #"{"rerun": 40}"#, port: port, token: token).status == 404)
        #expect(try await Self.post("/api/bots/app/integrations", #"{"rerun": -1}"#, port: port, token: token).status == 404, "no cell")
        let both = try await Self.post("/api/bots/app/integrations", #"{"rerun": 1, "pullRequest": 2}"#, port: port, token: token)
        #expect(both.status == 400, "\(both.text)")
        let refused = try await runProcess(Executables.kiln, ["trigger", "app", "--rerun", "4", "--failed"], in: home.path)
        #expect(
            refused.status == 1 && refused.standardError.contains("integration #4 ended as succeeded, with no failed test"),
            "\(refused.standardError)")
        let alone = try await runProcess(Executables.kiln, ["trigger", "app", "--failed"], in: home.path)
        #expect(alone.status != 0 && alone.standardError.contains("--failed goes with --rerun N"), "\(alone.standardError)")

        // 6. kiln trigger --rerun N --failed, on the command line.
        try plan(xctest: ["fail"], steady: [])
        let triggered = try await runProcess(Executables.kiln, ["trigger", "app", "--rerun", "1", "--failed"], in: home.path)
        #expect(triggered.status == 0 && triggered.standardOutput == "queued app #5, re-run of #1's failed tests\n", "\(triggered.standardOutput)")
        let five = try await completed(5)
        #expect(names(five) == ["testPlanned", "testSteady"], "\(five.tests)")
        // It failed, passed and failed on this one commit: flaky by its history, so it fails nothing.
        #expect(five.tests.first { $0.name == "testPlanned" }?.status == .flaky, "\(five.tests)")

        // The audit trail: every re-run, with who asked.
        let audit = try await runProcess(Executables.kiln, ["audit"], in: home.path).standardOutput
        #expect(audit.contains("queued  token alice  from 127.0.0.1  app #2  re-run of #1's failed tests"), "\(audit)")
        #expect(audit.contains("queued  token alice  from 127.0.0.1  app #4  re-run of #1\n"), "\(audit)")
        #expect(audit.contains("app #5  re-run of #1's failed tests; by "), "\(audit)")

        // The page of a re-run links what it re-runs, and says why it passed.
        let page = try await AccessServeTests.request("GET", "/bots/app/integrations/3", port: port, token: token).text
        #expect(page.contains(#"rerun: <a href="/bots/app/integrations/1">re-run of #1&#39;s failed tests</a>"#), "\(page)")
        #expect(page.contains("the failures of #1 did not reproduce"))
        _ = try await served.server.terminate()
    }
}
