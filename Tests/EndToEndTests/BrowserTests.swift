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

@Suite("A real browser: the pages work under their Content-Security-Policy")
struct BrowserTests {
    static let driver = "/usr/bin/chromedriver"

    @Test("Headless Chromium signs in, sees a running integration's log grow, presses Cancel; no policy violation")
    func livePage() async throws {
        for path in [Self.driver, "/usr/lib/python3/dist-packages/selenium"] {
            guard FileManager.default.fileExists(atPath: path) else {
                Issue.record("\(path) is missing: apt-get install chromium chromium-driver python3-selenium (make deps does)")
                return
            }
        }
        let repo = try ServerTests.quickRepository()
        let talk = "for i in $(seq 1 600); do echo line-$i; sleep 0.2; done"
        let served = try await ServedHome(
            bots: [
                "app":
                    "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\ntriggers: [{name: talk, phase: before, run: '\(talk)'}]\n"
            ])
        let port = try await served.server.waitForPort()
        let made = try await runProcess(Executables.kiln, ["token", "add", "alice", "--role", "member"], in: served.home.path)
        let token = try #require(made.standardOutput.split(separator: "\n").last.map(String.init), "\(made.standardError)")
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path).status == 0)
        try await served.eventually("the integration's log to talk") {
            let store = try served.store()
            let running = try await store.integrations(bot: "app", limit: 1, before: nil).first?.isRunning == true
            let log = try await store.readLog(bot: "app", number: 1, from: 0, limit: 1 << 20) ?? []
            return running && String(decoding: log, as: UTF8.self).contains("line-3")
        }

        let script = Executables.packageRoot + "/Tests/Fixtures/browser/drive.py"
        let drive = try await runProcess("/usr/bin/python3", [script, "http://127.0.0.1:\(port)", token, "app", "1"], in: served.home.path)
        #expect(drive.status == 0, "\(drive.standardError)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(drive.standardOutput.utf8)) as? [String: Any], "\(drive.standardOutput)")
        #expect(seen["afterSignIn"] as? String == "http://127.0.0.1:\(port)/", "signed in and sent to the front page: \(seen)")
        let (atLoad, later) = (seen["linesAtLoad"] as? Int ?? 0, seen["linesLater"] as? Int ?? 0)
        #expect(later >= atLoad + 3, "the live log follows the integration: \(atLoad) lines, then \(later)")
        #expect(seen["followedToEnd"] as? Bool == true, "the page keeps to the growing log's end: \(seen)")
        #expect(
            seen["scrolledUpLines"] as? Int ?? 0 >= 3 && seen["scrollAfterLines"] as? Int == 0,
            "scrolled up, the page stays there while lines arrive (Cancel stays under the pointer): \(seen)")
        #expect(seen["canceledShown"] as? Bool == true, "the Cancel form posted and the page says so: \(seen)")
        let console = seen["console"] as? [String] ?? []
        #expect(!console.contains { $0.contains("Content Security Policy") || $0.contains("Refused to") }, "\(console)")
        let ended = try #require(try await served.integrations("app").first)
        #expect(ended.result == .canceled)
        let trail = try await served.store().auditEvents(since: nil, limit: 20).map { "\($0.action.rawValue) \($0.token ?? "-")" }
        #expect(trail == ["token-added alice", "sign-in alice", "canceled alice"], "\(trail)")
        _ = try await served.server.terminate()
    }

    @Test(
        "Headless Chromium reads a failed integration: the failure on the first screen with its line, the file at that line, the log open at the failing step on that line, colours as colours; no page scrolls sideways on a phone"
    )
    func readingAFailure() async throws {
        for path in [Self.driver, "/usr/lib/python3/dist-packages/selenium"] {
            guard FileManager.default.fileExists(atPath: path) else {
                Issue.record("\(path) is missing: apt-get install chromium chromium-driver python3-selenium (make deps does)")
                return
            }
        }
        let package = try FixturePackage()
        let repo = package.repository
        // A trigger that prints in colour, as compilers and test tools do on a terminal.
        let bot = """
            repository: {url: '\(repo.url)'}
            schedule: {poll: 0}
            triggers:
              - name: colour
                phase: before
                run: printf '\\033[1;31mred words\\033[0m and plain ones\\n'

            """
        let served = try await ServedHome(bots: ["app": bot], seeded: ["app"])
        let port = try await served.server.waitForPort()
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path).status == 0)
        try await served.eventually("the first integration to end", timeout: .seconds(240)) {
            try await served.integrations("app").first?.step == .completed
        }
        try repo.commit("Expect four", files: ["Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: true)], author: .bob)
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path).status == 0)
        try await served.eventually("the second integration to end", timeout: .seconds(240)) {
            let latest = try await served.integrations("app").first
            return latest?.number == 2 && latest?.step == .completed
        }
        #expect(try await served.integrations("app").first?.result == .testFailures)

        let script = Executables.packageRoot + "/Tests/Fixtures/browser/read_failure.py"
        let read = try await runProcess("/usr/bin/python3", [script, "http://127.0.0.1:\(port)", "app", "2"], in: served.home.path)
        #expect(read.status == 0, "\(read.standardError)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(read.standardOutput.utf8)) as? [String: Any], "\(read.standardOutput)")
        let viewport = seen["viewport"] as? Double ?? 0
        #expect((seen["markedLineTop"] as? Double ?? .infinity) < viewport, "the failing line is on the first screen: \(seen)")
        #expect(
            seen["message"] as? String == "MathTests.testMaybeFails: XCTAssertEqual failed: (\"3\") is not equal to (\"4\") - one plus two", "\(seen)"
        )
        #expect((seen["markedLine"] as? String ?? "").contains("XCTAssertEqual(add(1, 2), 4, \"one plus two\")"), "\(seen)")
        #expect((seen["introducedBy"] as? String ?? "").contains("introduced by Bob Builder"), "\(seen)")
        let file = "/bots/app/integrations/2/source/Tests/LibTests/LibTests.swift#L6"
        #expect(seen["sourceURL"] as? String == "http://127.0.0.1:\(port)\(file)", "\(seen)")
        let sourceTarget = seen["sourceTarget"] as? [String] ?? []
        #expect(sourceTarget.first == "L6" && sourceTarget.last?.contains("one plus two") == true, "the file opens on the line: \(seen)")
        let logTarget = seen["logTarget"] as? [String] ?? []
        #expect(
            (seen["logURL"] as? String ?? "").hasSuffix(
                "/bots/app/integrations/2/steps?line=\(logTarget.first?.dropFirst() ?? "?")#\(logTarget.first ?? "?")"),
            "\(seen)")
        #expect((logTarget.last ?? "").contains("LibTests.swift:6"), "the log opens on the line that reports it: \(seen)")
        let steps = (seen["steps"] as? [[Any]] ?? []).compactMap { step in (step.first as? String).map { ($0, step.last as? Bool ?? false) } }
        // a testing section: the first pass (the test this change touched) has its own
        #expect(steps.contains { $0.0.hasPrefix("step-testing") && $0.1 } && steps.filter(\.1).count == 1, "only the failing step is open: \(steps)")
        #expect((seen["red"] as? [String]) == ["rgb(207, 34, 46)", "red words"], "a colour is a colour, not escape bytes: \(seen)")
        #expect(seen["escapes"] as? Bool == false && seen["swiftpmWarning"] as? Bool == false, "\(seen)")
        let sideways = (seen["sideways"] as? [String: Int] ?? [:]).filter { $0.value > 0 }
        #expect(seen["sideways"] != nil && sideways.isEmpty, "pages wider than a 400 px phone, by how many pixels: \(sideways)")
        let console = seen["console"] as? [String] ?? []
        #expect(!console.contains { $0.contains("Content Security Policy") || $0.contains("Refused to") }, "\(console)")
        try await checkAccessibility(of: served, port: port)
        _ = try await served.server.terminate()
    }

    /// axe-core on the front, bot, integration, log, test and sign-in pages, without a token and
    /// signed in as a member: no serious or critical violation; the skip link is the first Tab.
    func checkAccessibility(of served: ServedHome, port: Int) async throws {
        let pages = [
            "/", "/bots/app", "/bots/app/integrations/2", "/bots/app/integrations/2/steps", "/bots/app/tests/MathTests/testMaybeFails",
            "/bots/app/integrations/2/source/Tests/LibTests/LibTests.swift",
        ]
        guard let seen = try await Self.readers(of: pages, home: served.home, port: port) else { return }
        let first = seen["firstTab"] as? [Any] ?? []
        #expect(first.first as? String == "skip" && first.dropFirst().first as? String == "#main", "the first Tab: \(first)")
        #expect((first.dropFirst(2).first as? Double ?? 0) > 0, "the skip link shows itself when focused: \(first)")
        #expect((seen["afterSkip"] as? String ?? "").hasSuffix("/#main"), "\(seen)")
        let third = seen["thirdTab"] as? [Any] ?? []
        #expect(third.dropFirst(3).first as? String == "solid", "a focused link has a visible outline: \(third)")
        let signedIn = (seen["signedIn"] as? String ?? "").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(signedIn == "Signed in as alice Sign out", "the header says who is signed in: \(seen)")
    }

    /// Runs `accessibility.py` on `pages` of the server on `port` (serving `home`): axe-core
    /// without a token and signed in as `member` (a token made for it), the keyboard on the front
    /// page, and each page in a 400 px window. Expects no serious or critical violation for either
    /// reader and no page wider than the window; returns what the script saw, nil (an issue
    /// recorded) when axe-core is not installed.
    static func readers(of pages: [String], home: TemporaryDirectory, port: Int, member: String = "alice") async throws -> [String: Any]? {
        let axe = Executables.packageRoot + "/.build/python"
        guard FileManager.default.fileExists(atPath: axe + "/axe_selenium_python/axe.py") else {
            Issue.record("axe-selenium-python is missing from \(axe): scripts/install-python-packages installs it (make deps does)")
            return nil
        }
        let made = try await runProcess(Executables.kiln, ["token", "add", member, "--role", "member"], in: home.path)
        let token = try #require(made.standardOutput.split(separator: "\n").last.map(String.init), "\(made.standardError)")
        let script = Executables.packageRoot + "/Tests/Fixtures/browser/accessibility.py"
        let run = try await runProcess(
            "/usr/bin/python3", [script, "http://127.0.0.1:\(port)", token] + pages, in: home.path, environment: ["PYTHONPATH": axe])
        #expect(run.status == 0, "\(run.standardError)")
        let seen = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run.standardOutput)")
        for reader in ["anonymous", "member"] {
            let found = (seen[reader] as? [String: [Any]] ?? [:]).filter { !$0.value.isEmpty }
            #expect(seen[reader] != nil && found.isEmpty, "serious or critical axe-core violations for the \(reader) reader: \(found)")
        }
        let sideways = (seen["sideways"] as? [String: Int] ?? [:]).filter { $0.value > 0 }
        #expect(seen["sideways"] != nil && sideways.isEmpty, "pages wider than a 400 px phone, by how many pixels: \(sideways)")
        return seen
    }
}
