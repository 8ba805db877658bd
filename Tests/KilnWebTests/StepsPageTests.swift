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
import KilnTestSupport
import Testing

@testable import KilnWeb

@Suite("The log by step: sections, colours, line anchors, the failure's line")
struct StepsPageTests {
    static let log = """
        === checkout: /srv/app main
        checked out 1234567 (1 new commit)
        === building: swift build
        Building for debugging... <script>alert("x")</script> & 'more'
        \u{1B}[1m/work/app/Sources/App/main.swift:3:5: \u{1B}[31merror: \u{1B}[0m\u{1B}[1mcannot find 'x' in scope\u{1B}[0m
        [3/4] Compiling\r[4/4] Compiling App
        *** result: build-errors

        """

    @Test(
        "Each step is a section with its duration, the failed one open and marked; colours are styles, never escape bytes; every line anchored; a failure's link finds its line"
    )
    func steps() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let error = IntegrationIssue(type: .error, message: "cannot find 'x' in scope", file: "Sources/App/main.swift", line: 3, fingerprint: "e1")
        let integration = try await web.integrate(
            "app", result: .buildErrors, outcome: IntegrationOutcome(result: .buildErrors, issues: [error]), log: Self.log)
        let base = "/bots/app/integrations/\(integration.number)"

        let page = try await web.get(base + "/steps")
        #expect(page.status == 200 && page.contentType.hasPrefix("text/html"))
        #expect(!page.body.contains(0x1B), "no escape byte reaches the page")
        #expect(page.text.contains("<details class=\"step\" id=\"step-checkout\"><summary>"), "checkout folded: \(page.text)")
        #expect(page.text.contains("<details class=\"step failed\" id=\"step-building\" open><summary>"), "building open: \(page.text)")
        #expect(page.text.contains("<span class=\"bold fg-red\">error: </span>"), "\(page.text)")
        #expect(page.text.contains("id=\"L5\"><a class=\"n\" href=\"#L5\">5</a>"), "\(page.text)")
        #expect(page.text.contains(">[4/4] Compiling App\n"), "what the terminal showed last of a redrawn line")
        let escaped = "Building for debugging... &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;more&#39;"
        #expect(page.text.contains(escaped) && !page.text.contains("<script>alert"), "the log's text is escaped")

        // The integration page: its steps lead to their sections, its failure to the log's line,
        // and its tail is coloured too.
        let integrationPage = try await web.get(base).text
        #expect(integrationPage.contains("<a href=\"\(base)/steps#step-building\">building</a>"), "\(integrationPage)")
        #expect(!integrationPage.contains("\u{1B}"))
        #expect(integrationPage.contains("<span class=\"bold fg-red\">error: </span>"))
        #expect(integrationPage.contains(escaped) && !integrationPage.contains("<script>alert"), "the tail's text is escaped")
        let find = base + "/steps?find=Sources/App/main.swift%3A3%3A"
        #expect(integrationPage.contains("<a href=\"\(find)\">Where the log reports it</a>"), "\(integrationPage)")
        let found = try await web.send("GET", find, body: Data(), headers: [:])
        #expect(found.status == 302 && found.headers["location"] == base + "/steps?line=5#L5", "\(found.status) \(found.headers)")
        let marked = try await web.get(base + "/steps?line=5").text
        #expect(marked.contains("<span class=\"line marked\" id=\"L5\">"))
        let missing = try await web.send("GET", base + "/steps?find=nowhere.swift%3A9%3A", body: Data(), headers: [:])
        #expect(missing.status == 302 && missing.headers["location"] == base + "/steps")
        #expect(try await web.get("/bots/app/integrations/99/steps").status == 404)
    }
}

@Suite("Parts of pages kept once made")
struct KeptTests {
    @Test("The newest are kept, the oldest given up past the capacity; keeping one again changes nothing")
    func capacity() async {
        let kept = Kept<String>(capacity: 2)
        await kept.keep("a", for: "1")
        await kept.keep("b", for: "2")
        await kept.keep("a again", for: "1")
        await kept.keep("c", for: "3")
        let values = [await kept.value(for: "1"), await kept.value(for: "2"), await kept.value(for: "3")]
        #expect(values == [nil, "b", "c"])
    }
}
