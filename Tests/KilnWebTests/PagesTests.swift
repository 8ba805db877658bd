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
import Testing

@Suite("Pages and API over HTTP")
struct PagesTests {
    static let hostile = "<script>alert(1)</script>"

    /// An integration whose every user-supplied text is hostile markup.
    static var hostileOutcome: IntegrationOutcome {
        IntegrationOutcome(
            result: .testFailures,
            tests: [
                TestCase(suite: "AppTests", name: "test\(hostile)", status: .failed, duration: 0.5, message: "boom"),
                TestCase(suite: "AppTests", name: "testFine", status: .passed, duration: 0.1),
            ],
            issues: [
                IntegrationIssue(
                    type: .warning, message: "unused \(hostile)", file: "Sources/App/a.swift", line: 3, fingerprint: "w1",
                    introducedBy: [Committer(name: "Mallory \(hostile)", email: "m@example.com", commit: "abc1234")]),
                IntegrationIssue(
                    type: .analyzerWarning, message: "no license header", file: "Sources/App/b.swift", line: 1, fingerprint: "a1",
                    check: .licenseHeader),
            ],
            commits: [Commit(sha: "abc1234", author: "Mallory \(hostile)", email: "m@example.com", date: Date(), subject: "fix \(hostile)")])
    }

    @Test("/ lists each bot with its result as a word, and broken bot files with their errors")
    func frontPage() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app, "lib": Bots.app, "bad": "repository: {url: x}\nshedule: {}\n"])
        defer { Task { await web.stop() } }
        try await web.integrate("app", result: .succeeded)
        let page = try await web.get("/")
        #expect(page.status == 200)
        #expect(page.contentType == "text/html; charset=utf-8")
        #expect(page.text.contains("href=\"/bots/app\""))
        #expect(page.text.contains("href=\"/bots/lib\""))
        #expect(page.text.contains(">succeeded<"))
        #expect(page.text.contains("no integration yet"))
        #expect(page.text.contains("Broken bot files"))
        #expect(page.text.contains("unknown key &#39;shedule&#39;"))
        let wall = try await web.get("/?bigscreen")
        #expect(wall.status == 200)
        #expect(wall.text.contains("http-equiv=\"refresh\""))
        #expect(wall.text.contains("class=\"tile good\""))
        #expect(!wall.text.contains("<script"))
        let css = try await web.get("/style.css")
        #expect(css.contentType == "text/css; charset=utf-8")
        #expect(try await web.get("/health").status == 200)
    }

    @Test("Several hosts: the front page and /api/hosts list them, mark a gone one and one reading other bot files")
    func hosts() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        for (name, digest) in [("build-1", "aaa"), ("build-2", "aaa"), ("build-3", "bbb")] {
            try await web.store.heartbeat(HostReport(name: name, version: "9.9", executors: 4, busy: 1, botsDigest: digest, lease: .seconds(30)))
        }
        try await web.store.heartbeat(HostReport(name: "build-4", version: "9.9", executors: 2, busy: 0, botsDigest: "ccc", lease: .milliseconds(1)))
        // The front page follows the store within a second (`ResponseCache`): the heartbeats
        // reach it when the store's change feed says so, later on a busy machine than 50 ms.
        var page = ""
        try await TokenMemoryTests.eventually("the front page to list the four hosts") {
            page = try await web.get("/").text
            return page.contains("<td>build-4</td>")
        }
        #expect(page.contains("<h2>Hosts</h2>"))
        #expect(page.contains("Hosts read different bot files"))
        for name in ["build-1", "build-2", "build-3", "build-4"] { #expect(page.contains("<td>\(name)</td>"), "\(name) listed") }
        #expect(page.contains("1 of 4"))
        #expect(page.components(separatedBy: "other bot files</span>").count == 2, "only build-3 reads other bot files")
        #expect(page.components(separatedBy: ">gone</span>").count == 2, "only build-4 is gone")

        let api = try await web.get("/api/hosts")
        let hosts = try JSONSerialization.jsonObject(with: Data(api.text.utf8)) as? [[String: Any]] ?? []
        #expect(hosts.compactMap { $0["name"] as? String } == ["build-1", "build-2", "build-3", "build-4"])
        #expect(hosts.filter { $0["botsDiffer"] as? Bool == true }.compactMap { $0["name"] as? String } == ["build-3"])
        #expect(hosts.filter { $0["gone"] as? Bool == true }.compactMap { $0["name"] as? String } == ["build-4"])
    }

    @Test("The front page, a bot's history and an integration show each figure with its change since the last integration")
    func figures() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let warnings = (1...3).map { (index: Int) in
            IntegrationIssue(type: .warning, message: "unused \(index)", file: "a.swift", line: index, fingerprint: "w\(index)")
        }
        try await web.integrate("app", result: .succeeded, outcome: IntegrationOutcome(result: .succeeded, issues: warnings))
        let second = try await web.integrate("app", result: .testFailures, outcome: Self.hostileOutcome)
        let change = { (figure: Int, change: String) in "\(figure) <span class=\"change\">\(change)</span>" }
        for path in ["/", "/bots/app"] {
            let page = try await web.get(path).text
            #expect(page.contains(change(1, "−2")), "warnings 1, two fewer, on \(path)")
            #expect(page.contains(change(1, "+1")), "test failures 1, one more, on \(path)")
            #expect(page.contains(change(2, "+2")), "tests 2, two more, on \(path)")
        }
        let page = try await web.get("/bots/app/integrations/\(second.number)").text
        #expect(page.contains("1 warning <span class=\"change\">−2</span>, 1 test failure <span class=\"change\">+1</span> of 2 tests"))
    }

    @Test("Analyzer warnings: the page counts and lists them, the API has their type, count and result")
    func analyzerWarnings() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let finding = IntegrationIssue(
            type: .analyzerWarning, message: "[NeverForceUnwrap] do not force unwrap 'Int(\"1\")'", file: "Sources/Lib/Lib.swift", line: 2,
            fingerprint: "f1", check: .format)
        let integration = try await web.integrate(
            "app", result: .analyzerWarnings, outcome: IntegrationOutcome(result: .analyzerWarnings, issues: [finding]))
        let page = try await web.get("/bots/app/integrations/\(integration.number)").text
        #expect(page.contains("of 0 tests, 1 analyzer warning"), "\(page)")
        #expect(
            page.contains(
                "<span class=\"type\">analyzer-warning</span> <span class=\"check\">format</span> <code>Sources/Lib/Lib.swift:2</code> [NeverForceUnwrap]"
            ),
            "\(page)")
        #expect(try await web.get("/bots/app").text.contains("analyzer-warnings"))
        let api = try await web.get("/api/bots/app/integrations/\(integration.number)").text
        let json = try JSONSerialization.jsonObject(with: Data(api.utf8)) as? [String: Any]
        #expect(json?["result"] as? String == "analyzer-warnings")
        #expect((json?["summary"] as? [String: Any])?["analyzerWarnings"] as? Int == 1, "\(api)")
        #expect((json?["issues"] as? [[String: Any]])?.first?["type"] as? String == "analyzer-warning", "\(api)")
    }

    @Test("A flaky test is shown apart, with its first failure, and counted in the summary; the API says flaky")
    func flakyTests() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let tests = [
            TestCase(suite: "MathTests", name: "testAdds", status: .passed, duration: 0.1),
            TestCase(suite: "MathTests", name: "testRace", status: .flaky, duration: 0.2, message: "timed out after 1 s"),
        ]
        let integration = try await web.integrate("app", result: .succeeded, outcome: IntegrationOutcome(result: .succeeded, tests: tests))
        let page = try await web.get("/bots/app/integrations/\(integration.number)").text
        #expect(page.contains("of 2 tests, <span class=\"warn\">1 flaky test</span>"))
        #expect(page.contains("<h2>Flaky tests</h2>"))
        #expect(
            page.contains(
                "<td><a href=\"/bots/app/tests/MathTests/testRace\">testRace</a></td><td class=\"warn\">flaky</td><td>0.2 s</td><td>timed out after 1 s</td>"
            ),
            "\(page)")
        #expect(!page.contains("Failing tests"))
        let api = try await web.get("/api/bots/app/integrations/\(integration.number)").text
        let json = try JSONSerialization.jsonObject(with: Data(api.utf8)) as? [String: Any]
        let statuses = (json?["tests"] as? [[String: Any]])?.compactMap { $0["status"] as? String }
        #expect(statuses == ["passed", "flaky"])
    }

    @Test("A test's page and API: its results with links, flip rate, flaky with the reason; any name is addressable")
    func testHistory() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let suite = "LibTests.SwiftMath"
        let name = "adds() \"1/2 <b>\""
        for status in [TestStatus.passed, .flaky, .failed] {
            let tests = [TestCase(suite: suite, name: name, status: status, duration: 0.5, message: status == .passed ? nil : "off by one")]
            try await web.integrate("app", result: .succeeded, outcome: IntegrationOutcome(result: .succeeded, tests: tests))
        }
        let path = "/bots/app/tests/LibTests.SwiftMath/adds()%20%221%2F2%20%3Cb%3E%22"
        let integration = try await web.get("/bots/app/integrations/3").text
        #expect(integration.contains("href=\"\(path)\""), "the integration page links each test to its history")
        let page = try await web.get(path)
        #expect(page.status == 200)
        #expect(
            page.text.contains("<h1>LibTests.SwiftMath <code>adds() &quot;1/2 &lt;b&gt;&quot;</code> <span class=\"result warn\">flaky</span></h1>"))
        #expect(page.text.contains("Flaky: it failed, then passed when run again, in #2."))
        #expect(page.text.contains("1 passed, 1 failed, 1 flaky in the last 3 integrations"))
        #expect(page.text.contains("<td><a href=\"/bots/app/integrations/3\">3</a></td><td class=\"bad\">failed</td>"))
        #expect(page.text.contains("<polyline"))
        let api = try await web.get("/api" + path + "?limit=2")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(api.text.utf8)) as? [String: Any])
        #expect(json["name"] as? String == name && json["suite"] as? String == suite)
        #expect(json["flaky"] as? Bool == true)
        let results = json["results"] as? [[String: Any]] ?? []
        #expect(results.compactMap { $0["integration"] as? Int } == [3, 2])
        #expect(results.compactMap { $0["status"] as? String } == ["failed", "flaky"])
        #expect(results.first?["commit"] as? String == "abc1234" && results.first?["message"] as? String == "off by one")
        #expect(try await web.get("/bots/app/tests/LibTests.SwiftMath").status == 404, "a suite without a name is no test")
        #expect(try await web.get("/api/bots/nobody/tests/S/t").status == 404)
    }

    @Test("Measurements: the integration page lists value, baseline and change; the test page charts them per host; the API has them")
    func measurements() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let measured = { (values: [Double], baseline: Double?) in
            TestCase(
                suite: "MathTests", name: "testSpeed", status: .passed, duration: 0.6,
                measurement: TestMeasurement(values: values, baseline: baseline))
        }
        let plain = TestCase(suite: "MathTests", name: "testAdds", status: .passed, duration: 0.01)
        try await web.integrate(
            "app", result: .succeeded, outcome: IntegrationOutcome(result: .succeeded, tests: [measured([0.040, 0.041, 0.042], nil), plain]))
        try await web.integrate(
            "app", result: .succeeded, outcome: IntegrationOutcome(result: .succeeded, tests: [measured([0.039, 0.040, 0.041], 0.041)]))
        let regression = IntegrationIssue(
            type: .performanceRegression, message: "MathTests.testSpeed: 0.061 s, 51% slower than 0.040 s on test", file: nil, line: nil,
            fingerprint: "p1")
        // A package-benchmark counter: its percentiles, a count, found regressed by a message
        // that names the benchmark and not the test.
        var mallocs = TestMeasurement(values: [19, 19, 21], baseline: 12, unit: .count)
        mallocs.regressed = true
        let counter = TestCase(suite: "Parse", name: "Parse 1 KiB · mallocCountTotal", status: .passed, duration: 0, measurement: mallocs)
        let counted = IntegrationIssue(
            type: .performanceRegression, message: "Parse 1 KiB: mallocs p50 12 → 19 (+58%) on test", file: nil, line: nil, fingerprint: "p2")
        let slower = try await web.integrate(
            "app", result: .testFailures,
            outcome: IntegrationOutcome(
                result: .testFailures, tests: [measured([0.060, 0.061, 0.062], 0.0405), counter], issues: [regression, counted]))

        let page = try await web.get("/bots/app/integrations/\(slower.number)").text
        #expect(page.contains("<h2>Measurements</h2>"), "\(page)")
        #expect(
            page.contains(
                "<td>MathTests</td><td><a href=\"/bots/app/tests/MathTests/testSpeed\">testSpeed</a></td><td>0.061 s</td><td>0.041 s</td><td class=\"bad\">+51 %</td>"
            ), "\(page)")
        #expect(page.contains(">Parse 1 KiB · mallocCountTotal</a></td><td>19</td><td>12</td><td class=\"bad\">+58 %</td>"), "\(page)")
        let first = try await web.get("/bots/app/integrations/1").text
        #expect(first.contains("<td>0.041 s</td><td>none yet</td><td class=\"\">—</td>"), "no baseline yet: \(first)")
        let listed = first.components(separatedBy: "<h2>Measurements</h2>").last?.components(separatedBy: "</table>").first ?? ""
        #expect(listed.contains("testSpeed") && !listed.contains("testAdds"), "a test that measures nothing is not listed: \(listed)")

        let test = try await web.get("/bots/app/tests/MathTests/testSpeed").text
        #expect(test.contains("Time measured on test: <strong>0.061 s</strong>"), "\(test)")
        #expect(test.contains("dashed: baseline") && test.contains("stroke-dasharray"), "\(test)")
        #expect(test.contains("<td>0.061 s (+51 %)</td>"), "\(test)")

        let api = try await web.get("/api/bots/app/integrations/\(slower.number)").text
        let json = try JSONSerialization.jsonObject(with: Data(api.utf8)) as? [String: Any]
        let measurement = (json?["tests"] as? [[String: Any]])?.first?["measurement"] as? [String: Any]
        #expect(measurement?["values"] as? [Double] == [0.060, 0.061, 0.062], "\(api)")
        #expect(measurement?["median"] as? Double == 0.061 && measurement?["baseline"] as? Double == 0.0405, "\(api)")
        #expect(abs((measurement?["change"] as? Double ?? 0) - 0.506) < 0.001, "\(api)")
        #expect(measurement?["unit"] as? String == "seconds", "\(api)")
        let counterJSON = (json?["tests"] as? [[String: Any]])?.first { $0["suite"] as? String == "Parse" }?["measurement"] as? [String: Any]
        #expect(counterJSON?["unit"] as? String == "count" && counterJSON?["median"] as? Double == 19, "\(api)")
        let history = try await web.get("/api/bots/app/tests/MathTests/testSpeed").text
        #expect(history.contains("\"measurement\":{"), "\(history)")
        let counterPage = try await web.get("/bots/app/tests/Parse/Parse%201%20KiB%20%C2%B7%20mallocCountTotal").text
        #expect(counterPage.contains("Count measured on test: <strong>19</strong>") && counterPage.contains("<td>19 (+58 %)</td>"), "\(counterPage)")
    }

    @Test("A quarantined failure is shown apart and counted as such; the bot page lists quarantined tests with their last results")
    func quarantinedTests() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        for status in [TestStatus.passed, .failed] {
            let tests = [
                TestCase(
                    suite: "MathTests", name: "testRace", status: status, duration: 0.2, message: status == .failed ? "lost" : nil, quarantined: true),
                TestCase(suite: "MathTests", name: "testAdds", status: .passed, duration: 0.1),
            ]
            try await web.integrate("app", result: .succeeded, outcome: IntegrationOutcome(result: .succeeded, tests: tests))
        }
        let page = try await web.get("/bots/app/integrations/2").text
        #expect(page.contains("<span class=\"neutral\">1 quarantined failure</span>"))
        #expect(page.contains("<h2>Quarantined failures</h2>"))
        #expect(!page.contains("Failing tests"), "a quarantined failure is no failing test")
        let bot = try await web.get("/bots/app").text
        #expect(bot.contains("<h2>Quarantined tests</h2>"))
        #expect(
            bot.contains(
                "<td><a href=\"/bots/app/tests/MathTests/testRace\">MathTests/testRace</a></td><td><a class=\"bad\" href=\"/bots/app/integrations/2\" title=\"#2\">failed</a> <a class=\"good\" href=\"/bots/app/integrations/1\" title=\"#1\">passed</a> </td>"
            ), "\(bot)")
        let api = try await web.get("/api/bots/app/integrations/2").text
        let json = try JSONSerialization.jsonObject(with: Data(api.utf8)) as? [String: Any]
        #expect((json?["tests"] as? [[String: Any]])?.compactMap { $0["quarantined"] as? Bool } == [true, false])
    }

    @Test("Commit messages, authors, issue messages and test names come out escaped on every page")
    func escaping() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let integration = try await web.integrate("app", result: .testFailures, outcome: Self.hostileOutcome, log: "log line \(Self.hostile)\n")
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
        let page = try await web.get("/bots/app/integrations/\(integration.number)")
        #expect(page.status == 200)
        #expect(!page.text.contains(Self.hostile))
        #expect(page.text.contains("fix \(escaped)"))
        #expect(page.text.contains("Mallory \(escaped)"))
        #expect(page.text.contains("unused \(escaped)"))
        #expect(page.text.contains("test\(escaped)"))
        #expect(page.text.contains("log line \(escaped)"))
        #expect(page.text.contains("Failing tests"))
        #expect(page.text.contains("introduced by Mallory"))
        let history = try await web.get("/bots/app")
        #expect(!history.text.contains(Self.hostile))
        #expect(history.text.contains("test-failures"))
        #expect(history.text.contains("<polyline"))
    }

    @Test("The integration page shows the log's tail, never the whole of a huge log")
    func logTail() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let lines = (1...20_000).map { "line \($0) of the build output" }.joined(separator: "\n") + "\n"
        let integration = try await web.integrate("app", result: .succeeded, log: lines)
        let page = try await web.get("/bots/app/integrations/\(integration.number)")
        #expect(page.text.contains("line 20000 of the build output"))
        #expect(!page.text.contains("line 1 of the build output"))
        #expect(page.text.contains("only its end is shown"))
        #expect(page.body.count < 200_000)
        let whole = try await web.get("/bots/app/integrations/\(integration.number)/log")
        #expect(whole.contentType == "text/plain; charset=utf-8")
        #expect(whole.text == lines)
    }

    @Test("The badge shows the last result")
    func badge() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let none = try await web.get("/bots/app/badge.svg")
        #expect(none.contentType == "image/svg+xml; charset=utf-8")
        #expect(none.text.contains("no integration"))
        try await web.integrate("app", result: .buildErrors)
        let failed = try await web.get("/bots/app/badge.svg")
        #expect(failed.text.contains(">build-errors<"))
        #expect(failed.text.contains("#cf222e"))
        #expect(try await web.get("/bots/nope/badge.svg").status == 404)
    }

    @Test("The JSON API: bots, one bot, paged history, one integration, and 404s as JSON")
    func api() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        for _ in 1...5 { try await web.integrate("app", result: .succeeded) }
        try await web.integrate("app", result: .testFailures, outcome: Self.hostileOutcome)

        let bots = try await web.get("/api/bots")
        #expect(bots.contentType == "application/json; charset=utf-8")
        let list = try #require(try bots.json() as? [[String: Any]])
        #expect(list.map { $0["name"] as? String } == ["app"])
        #expect(list[0]["repository"] as? String == "https://github.com/example/app.git")
        #expect((list[0]["last"] as? [String: Any])?["number"] as? Int == 6)
        #expect(list[0]["running"] is NSNull)

        let bot = try #require(try await web.get("/api/bots/app").json() as? [String: Any])
        #expect(bot["status"] as? String == "idle")

        let page = try #require(try await web.get("/api/bots/app/integrations?limit=2&before=5").json() as? [[String: Any]])
        #expect(page.map { $0["number"] as? Int } == [4, 3])
        #expect(page[0]["result"] as? String == "succeeded")
        #expect((page[0]["summary"] as? [String: Any])?["coverage"] is NSNull)

        let detail = try #require(try await web.get("/api/bots/app/integrations/6").json() as? [String: Any])
        #expect(detail["result"] as? String == "test-failures")
        #expect((detail["tests"] as? [[String: Any]])?.count == 2)
        #expect((detail["commits"] as? [[String: Any]])?.first?["subject"] as? String == "fix \(Self.hostile)")
        let issue = try #require((detail["issues"] as? [[String: Any]])?.first)
        #expect(issue["status"] as? String == "new")
        #expect((issue["introducedBy"] as? [[String: Any]])?.first?["email"] as? String == "m@example.com")
        #expect(issue["check"] is NSNull, "only analyzer warnings have a check")
        #expect((detail["issues"] as? [[String: Any]])?.last?["check"] as? String == "license-header")
        #expect((detail["steps"] as? [[String: Any]])?.map { $0["name"] as? String } == ["checkout", "building"])

        for path in ["/api/bots/nope", "/api/bots/app/integrations/99", "/api/bots/app/integrations/x", "/api/bots/nope/integrations"] {
            let missing = try await web.get(path)
            #expect(missing.status == 404, "\(path)")
            #expect(missing.contentType == "application/json; charset=utf-8", "\(path)")
            #expect((try missing.json() as? [String: Any])?["error"] is String, "\(path)")
        }
        #expect(try await web.get("/api/bots/app/integrations?limit=0").status == 400)
        #expect(try await web.get("/api/bots/app/integrations?before=x").status == 400)
        #expect(try await web.get("/bots/nope").status == 404)
        #expect(try await web.get("/bots/app/integrations/99").status == 404)
    }

    @Test("/metrics: integrations by result, queue length, durations, webhooks and HTTP latency")
    func metrics() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        try await web.integrate("app", result: .succeeded)
        try await web.integrate("app", result: .buildErrors)
        _ = try await web.store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        _ = try await web.get("/api/bots")
        let text = try await web.get("/metrics")
        #expect(text.contentType.hasPrefix("text/plain; version=0.0.4"))
        #expect(text.text.contains("kiln_integrations_total{host=\"web-1\",result=\"succeeded\"} 1\n"))
        #expect(text.text.contains("kiln_integrations_total{host=\"web-1\",result=\"build-errors\"} 1\n"))
        #expect(text.text.contains("kiln_integrations_queued{host=\"web-1\"} 1\n"))
        #expect(text.text.contains("kiln_integration_duration_seconds_bucket{host=\"web-1\",le=\"10.0\"} 2\n"))
        #expect(text.text.contains("kiln_integration_duration_seconds_count{host=\"web-1\"} 2\n"))
        #expect(text.text.contains("kiln_webhook_deliveries_total{host=\"web-1\",outcome=\"queued\"} 0\n"))
        // The server's own first request at start (`FirstRequests`), and this test's.
        #expect(text.text.contains("kiln_http_request_duration_seconds_count{host=\"web-1\",route=\"/api/bots\",status=\"2xx\"} 2"))
    }
}
