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
import KilnGit
import KilnPresentation
import KilnTestSupport
import Testing

@Suite("A failed integration's page: its new failures first, with their source")
struct FailurePageTests {
    static let testFile = """
        import XCTest

        final class LibTests: XCTestCase {
            func testSum() {
                XCTAssertEqual(1 < 2 ? 3 : 0, 4)
            }
        }

        """

    @Test(
        "The new failure comes first: its message, its lines with the failing one marked, who brought it, a link that opens the file at that commit on that line"
    )
    func failureFirst() async throws {
        let repo = try GitFixture()
        try repo.commit("Start", files: ["README.md": "lib\n"])
        let commit = try repo.commit("Test the sum", files: ["Tests/LibTests/LibTests.swift": Self.testFile], author: .bob)
        let web = try await WebFixture.start(bots: ["lib": Bots.following(repo.url)])
        defer { Task { await web.stop() } }
        // The host's mirror, as its integration of the commit leaves it.
        let repository = Repository(url: try RepositoryURL(parsing: repo.url, relativeTo: "/"))
        _ = try await Mirrors(directory: DataDirectory(web.directory.url("data")).mirrors).update(repository)
        let failure = IntegrationIssue(
            type: .testFailure, message: "XCTAssertEqual failed: (\"3\") is not equal to (\"4\")", file: "Tests/LibTests/LibTests.swift",
            line: 5, fingerprint: "t1", introducedBy: [Committer(name: "Bob Builder", email: "bob@example.com", commit: commit)])
        let warning = IntegrationIssue(type: .warning, message: "unused x", file: "Sources/Lib/Lib.swift", line: 2, fingerprint: "w1")
        let integration = try await web.integrate(
            "lib", result: .testFailures, outcome: IntegrationOutcome(result: .testFailures, issues: [failure, warning]), commit: commit)

        let page = try await web.get("/bots/lib/integrations/\(integration.number)").text
        let section = try #require(page.range(of: "<h2 id=\"failures\">New failures</h2>"), "\(page)")
        let steps = try #require(page.range(of: "<h2>Steps</h2>"))
        #expect(section.upperBound < steps.lowerBound, "the failures come before the rest of the page")
        let first = String(page[section.upperBound..<steps.lowerBound])
        let link = "/bots/lib/integrations/\(integration.number)/source/Tests/LibTests/LibTests.swift#L5"
        #expect(first.contains("<a href=\"\(link)\"><code>Tests/LibTests/LibTests.swift:5</code></a>"), "\(first)")
        #expect(first.contains("XCTAssertEqual failed: (&quot;3&quot;) is not equal to (&quot;4&quot;)"), "\(first)")
        #expect(first.contains("introduced by Bob Builder (\(ShortHash.text(commit)))"), "\(first)")
        #expect(
            first.contains("<tr class=\"marked\"><td class=\"number\">5</td><td><code>        XCTAssertEqual(1 &lt; 2 ? 3 : 0, 4)</code></td></tr>"),
            "the failing line, escaped: \(first)")
        let shown = first.components(separatedBy: "<td class=\"number\">").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        #expect(shown == [3, 4, 5, 6, 7], "two lines either side")
        #expect(!first.contains("unused x"), "a warning is not a failure")
        #expect(!page.contains("href=\"\""), "no link that leads nowhere (the steps had one)")

        // The link opens Kiln's view of the file at that commit, every line anchored.
        let file = try await web.get(String(link.prefix { $0 != "#" }))
        #expect(file.status == 200 && file.contentType.hasPrefix("text/html"))
        #expect(
            file.text.contains("<tr id=\"L5\"><td class=\"number\"><a href=\"#L5\">5</a></td><td><code>        XCTAssertEqual(1 &lt; 2 ? 3 : 0, 4)"))
        #expect(file.text.contains(commit))
        #expect(try await web.get("/bots/lib/integrations/\(integration.number)/source/Sources/Missing.swift").status == 404)
        #expect(try await web.get("/bots/lib/integrations/\(integration.number)/source/../../etc/passwd").status != 200)
        #expect(try await web.get("/bots/lib/integrations/99/source/README.md").status == 404)
    }

    @Test("A bot on a forge links a failure to the forge's page of the file at the commit and line: GitHub, GitLab, Gitea")
    func forgeLinks() throws {
        let commit = "0123456789abcdef0123456789abcdef01234567"
        let cases = [
            ("https://github.com/example/app.git", nil, "https://github.com/example/app/blob/\(commit)/Sources/App/main%20file.swift#L3"),
            ("https://gitlab.com/group/sub/app.git", nil, "https://gitlab.com/group/sub/app/-/blob/\(commit)/Sources/App/main%20file.swift#L3"),
            (
                "https://git.example.org/team/app.git", ForgeKind.gitea,
                "https://git.example.org/team/app/src/commit/\(commit)/Sources/App/main%20file.swift#L3"
            ),
            ("/srv/git/app", nil, "/bots/app/integrations/7/source/Sources/App/main%20file.swift#L3"),
        ]
        #expect(SourceLink.percentEncoded("Zoë's file+1.swift") == "Zo%C3%AB%27s%20file%2B1.swift", "ASCII only, as a Location header needs")
        for (url, kind, expected) in cases {
            var bot = Bot(name: "app", repository: Repository(url: try RepositoryURL(parsing: url, relativeTo: "/")))
            bot.forge = kind.map { ForgeSettings(kind: $0, apiURL: "https://git.example.org/api/v1", tokenFile: "/dev/null") }
            #expect(SourceLink.url(file: "Sources/App/main file.swift", line: 3, commit: commit, bot: bot, integration: 7) == expected)
        }
    }
}
