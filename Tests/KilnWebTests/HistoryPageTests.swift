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

@Suite("Commit context on every list, a bot's history filtered, a test found")
struct HistoryPageTests {
    @Test(
        "The front, bot and integration pages show each commit's subject, author and forge link; ?result=&author=&branch=&pull= filter the history and stay on its links; ?test= finds a test"
    )
    func contextFilterSearch() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.following("https://github.com/example/app.git")])
        defer { Task { await web.stop() } }
        let store = web.store
        let sha1 = String(repeating: "1", count: 40)
        let sha2 = String(repeating: "2", count: 40)
        func commit(_ sha: String, _ author: String, _ subject: String) -> Commit {
            Commit(sha: sha, author: author, email: "someone@example.com", date: Date(), subject: subject)
        }
        _ = try await store.record(
            "app", outcome: IntegrationOutcome(result: .succeeded, commits: [commit(sha1, "Alice", "Add <b>it</b>")]), commit: sha1)
        let failing = TestCase(suite: "MathTests", name: "testAdds", status: .failed, duration: 0.1, message: "no")
        for _ in 0..<3 {
            _ = try await store.record(
                "app", outcome: IntegrationOutcome(result: .testFailures, tests: [failing], commits: [commit(sha2, "Bob", "Break it")]), commit: sha2)
        }

        let front = try await web.get("/").text
        #expect(front.contains(#"<a href="https://github.com/example/app/commit/\#(sha2)"><code>2222222222</code></a> Break it"#), "\(front)")
        #expect(front.contains("— Bob"))
        let bot = try await web.get("/bots/app").text
        #expect(bot.contains("Add &lt;b&gt;it&lt;/b&gt;") && !bot.contains("<b>it</b>"), "a subject is text, escaped")
        #expect(bot.contains(#"href="https://github.com/example/app/commit/\#(sha1)""#))
        let page = try await web.get("/bots/app/integrations/1").text
        #expect(
            page.contains(
                #"<a href="https://github.com/example/app/commit/\#(sha1)"><code>\#(sha1)</code></a> on main<br>Add &lt;b&gt;it&lt;/b&gt;"#),
            "\(page)")

        func rows(_ path: String) async throws -> [String] {
            let text = try await web.get(path).text
            return text.matches(of: /<tr><td><a href="\/bots\/app\/integrations\/(\d+)">/).map { String($0.output.1) }
        }
        #expect(try await rows("/bots/app") == ["4", "3", "2", "1"])
        #expect(try await rows("/bots/app?result=succeeded") == ["1"])
        #expect(try await rows("/bots/app?author=bob&result=test-failures") == ["4", "3", "2"])
        #expect(try await rows("/bots/app?branch=release") == [])
        #expect(try await web.get("/bots/app?branch=release").text.contains("No integration matches the filter."))
        let paged = try await web.get("/bots/app?author=bob&limit=2").text
        #expect(try await rows("/bots/app?author=bob&limit=2") == ["4", "3"])
        #expect(paged.contains(#"href="/bots/app?before=3&amp;author=bob">older"#), "the filter stays on the next page's link: \(paged)")
        #expect(paged.contains(#"<option value="test-failures">"#) && paged.contains(#"name="author" value="bob""#), "the form shows the filter")
        let wrong = try await web.get("/bots/app?result=green")
        #expect(wrong.status == 400 && wrong.text.contains("result must be one of succeeded,"), "\(wrong.text)")
        #expect(try await web.get("/bots/app?pull=x").status == 400)

        let found = try await web.get("/bots/app?test=adds").text
        #expect(found.contains(#"<li><a href="/bots/app/tests/MathTests/testAdds">MathTests.testAdds</a></li>"#), "\(found)")
        #expect(try await web.get("/bots/app?test=nothing-like-it").text.contains("No test in this bot's history matches."))
    }
}
