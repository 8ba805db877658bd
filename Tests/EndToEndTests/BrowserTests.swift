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
}
