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
import KilnServer
import KilnStore
import KilnTestSupport
import Logging
import Testing

/// Reviews from a real store's outbox to each forge's review API, as the forge double checks them
/// against the published endpoints.
@Suite("Pull request reviews, delivered to each forge")
struct ReviewPublisherTests {
    static let file = "Sources/App/a.swift"
    static let shas = (1...3).map { String(repeating: "\($0)", count: 40) }

    static func warning(_ line: Int, cells: [String] = []) -> IntegrationIssue {
        IntegrationIssue(
            type: .warning, message: "variable 'x\(line)' was never used", file: file, line: line, fingerprint: "w\(line)", cells: cells)
    }

    static let failure = IntegrationIssue(
        type: .testFailure, message: "AppTests.testAdds: XCTAssertEqual failed", file: "Tests/AppTests/AppTests.swift", line: 5, fingerprint: "t1")

    struct Fixture {
        let forge: ForgeDouble
        let store: SQLiteStore
        let publisher: ReviewPublisher
        let clock: ManualClock
        let kind: ForgeKind
        let token: String
        let directory: TemporaryDirectory

        init(_ kind: ForgeKind, reviewing: Bool = true, tick: Duration = .seconds(1), timers: Bool = false) async throws {
            self.kind = kind
            forge = try await ForgeDouble.start()
            directory = try TemporaryDirectory("kiln-review")
            token = try directory.write("token", forge.token + "\n")
            store = try SQLiteStore.open(dataDirectory: directory.url("data"))
            clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            publisher = ReviewPublisher(
                store: store, publicURL: "https://ci.example.com/",
                settings: .init(tick: tick, http: .init(connectTimeout: .seconds(2), totalTimeout: .seconds(5))),
                logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), clock: timers ? clock.timers : clock.wall,
                reviewing: { reviewing })
            // The pull request changed lines 10 and 11 of the file, as the forge counts them too.
            try forge.pullRequest(2, changes: ["\(Self.file):10", "\(Self.file):11"], refs: ("a" + shas[0].dropFirst(), shas[0], shas[0]))
        }

        static var file: String { ReviewPublisherTests.file }
        var shas: [String] { ReviewPublisherTests.shas }

        /// An integration of pull request #2 at `head`, with `issues`, completed now.
        func integrate(_ issues: [IntegrationIssue], head: String) async throws {
            var outcome = IntegrationOutcome(result: .testFailures, issues: issues)
            outcome.review = ReviewRequest(
                forge: kind, apiURL: forge.apiURL, tokenFile: token, project: "team/app", pullRequest: 2, head: head,
                changed: ChangedLines(lines: [Self.file: [10, 11]]), url: nil, limit: 25)
            try await store.record("app", outcome: outcome, commit: head, at: clock.now)
            clock.set(clock.now.addingTimeInterval(60))
        }
    }

    @Test(
        "On each forge: a warning on a changed line is a line comment, a test failure elsewhere the summary; the next push comments nothing again, resolves the fixed warning and edits the summary; an outage delays, never doubles",
        arguments: [ForgeKind.github, .gitea, .gitlab])
    func review(kind: ForgeKind) async throws {
        let fixture = try await Fixture(kind)
        let forge = fixture.forge

        // 1. A warning on line 10 and a failing test whose assertion the pull request did not touch.
        try await fixture.integrate([Self.warning(10, cells: ["default-debug-none", "6.2-debug-none"]), Self.failure], head: Self.shas[0])
        #expect(await fixture.publisher.round() == 1)
        var calls = try forge.reviewCalls()
        #expect(calls.allSatisfy { (200..<300).contains($0.code) }, "\(calls.map { "\($0.method) \($0.path) \($0.code)" })")
        let lines = calls.filter { $0.method == "POST" && ($0.path.hasSuffix("/reviews") || $0.path.hasSuffix("/discussions")) }
        #expect(lines.count == 1, "one line comment: \(calls.map(\.path))")
        let lineBodies = lines.flatMap { call -> [String] in
            if let comments = call.body?["comments"] as? [[String: Any]] { return comments.compactMap { $0["body"] as? String } }
            return [call.body?["body"] as? String].compactMap { $0 }
        }
        #expect(lineBodies.count == 1 && lineBodies.first?.contains("variable 'x10' was never used") == true, "\(lineBodies)")
        #expect(lineBodies.first?.contains("https://ci.example.com/bots/app/integrations/1") == true)
        #expect(lineBodies.first?.contains("new warning (in default-debug-none, 6.2-debug-none)") == true, "a matrix's cells: \(lineBodies)")
        let summaries = calls.filter {
            $0.method == "POST" && ($0.path.hasSuffix("/comments") || $0.path.hasSuffix("/notes")) && !$0.path.contains("reviews")
        }
        let summary = try #require(summaries.first?.body?["body"] as? String)
        #expect(summaries.count == 1 && summary.contains("XCTAssertEqual failed") && !summary.contains("x10"), "\(summary)")

        // 2. The next push fixes the warning: nothing commented again, its comment resolved, the summary edited in place.
        try await fixture.integrate([Self.failure], head: Self.shas[1])
        #expect(await fixture.publisher.round() == 1)
        calls = Array(try forge.reviewCalls().dropFirst(calls.count))
        #expect(!calls.contains { $0.method == "POST" }, "nothing posted anew: \(calls.map { "\($0.method) \($0.path)" })")
        switch kind {
        case .gitlab:
            #expect(calls.contains { $0.method == "PUT" && $0.path.contains("/discussions/") && $0.path.hasSuffix("?resolved=true") })
            #expect(try forge.discussionsResolved().values.sorted { !$0 && $1 } == [true])
        default:
            let edit = try #require(calls.first { $0.method == "PATCH" && ($0.body?["body"] as? String)?.contains("resolved in 2222222222") == true })
            #expect(edit.path.contains(kind == .github ? "/pulls/comments/" : "/issues/comments/"), "\(edit.path)")
        }
        let edited = calls.filter { ($0.method == "PATCH" || $0.method == "PUT") && ($0.body?["body"] as? String)?.contains("kiln:summary") == true }
        #expect(edited.count == 1 && (edited.first?.body?["body"] as? String)?.contains("integrations/2") == true, "\(calls.map(\.path))")

        // 3. A warning on line 11 while the forge is away: kept, then posted once when it is back.
        let before = try forge.reviewCalls().count
        forge.stop()
        try await fixture.integrate([Self.failure, Self.warning(11)], head: Self.shas[2])
        #expect(await fixture.publisher.round() == 0)
        #expect(try await fixture.store.reviews(limit: 1).first?.lastError != nil)
        try await forge.restart()
        fixture.clock.set(fixture.clock.now.addingTimeInterval(30))
        #expect(await fixture.publisher.round() == 1)
        let after = Array(try forge.reviewCalls().dropFirst(before))
        let posted = after.filter { $0.method == "POST" }
        #expect(posted.count == 1 && String(describing: posted.first?.body ?? [:]).contains("x11"), "\(after.map { "\($0.method) \($0.path)" })")
        #expect(await fixture.publisher.round() == 0, "nothing left")
        let bodies = try forge.commentBodies().values
        #expect(bodies.filter { $0.contains("x11") && !$0.contains("resolved") }.count == 1)
    }
}

extension ReviewPublisherTests {
    @Test("Two hosts on one PostgreSQL database, delivering at once: each pull request's review posted once")
    func twoHosts() async throws {
        let forge = try await ForgeDouble.start()
        let directory = try TemporaryDirectory("kiln-review")
        let token = try directory.write("token", forge.token + "\n")
        let url = try await PostgresServer.shared.database()
        let runner = StoreRunner()
        let hosts = [
            runner.run(try await PostgresStore.open(DatabaseSettings(url: url), connections: 4)),
            runner.run(try await PostgresStore.open(DatabaseSettings(url: url), connections: 4)),
        ]
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for number in 1...6 {
            try forge.pullRequest(number, changes: ["\(Self.file):10"])
            var outcome = IntegrationOutcome(result: .warnings, issues: [Self.warning(10)])
            outcome.review = ReviewRequest(
                forge: .github, apiURL: forge.apiURL, tokenFile: token, project: "team/app", pullRequest: number, head: Self.shas[0],
                changed: ChangedLines(lines: [Self.file: [10]]), url: nil, limit: 25)
            try await hosts[number % 2].record("app\(number)", outcome: outcome, commit: Self.shas[0], at: start)
        }
        let clock = ManualClock(start.addingTimeInterval(60))
        let publishers = hosts.map { host in
            ReviewPublisher(
                store: host, publicURL: "https://ci.example.com", logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
                clock: clock.wall)
        }
        var delivered = 0
        for _ in 0..<4 {
            async let first = publishers[0].round()
            async let second = publishers[1].round()
            delivered += await first + second
        }
        let posts = try forge.reviewCalls().filter { $0.method == "POST" && $0.path.hasSuffix("/reviews") }
        #expect(delivered == 6 && posts.count == 6 && Set(posts.map(\.path)).count == 6, "\(posts.map(\.path))")
        #expect(try await hosts[0].reviews(limit: 10).map(\.delivery) == Array(repeating: .sent, count: 6))
    }
}

extension ReviewPublisherTests {
    @Test("A token the forge refuses: the review is refused, not retried, with the forge's words for the bot page and kiln status")
    func refused() async throws {
        let fixture = try await Fixture(.github)
        try fixture.directory.write("token", "not-the-token\n")
        try await fixture.integrate([Self.warning(10)], head: Self.shas[0])
        #expect(await fixture.publisher.round() == 0)
        let review = try #require(try await fixture.store.reviews(limit: 1).first)
        #expect(review.delivery == .refused && review.responseCode == 401 && review.lastError?.contains("Bad credentials") == true)
        let problems = try await fixture.store.reviewProblems()
        #expect(problems.map(\.bot) == ["app"] && problems.first?.message.contains("Bad credentials") == true)
        fixture.clock.set(fixture.clock.now.addingTimeInterval(3600))
        #expect(await fixture.publisher.round() == 0)
        #expect(try fixture.forge.reviewCalls().count == 1, "refused for good: not tried again")
    }
}

extension ReviewPublisherTests {
    @Test(
        "A line the forge does not count as changed: the forge refuses the comment, and its finding goes to the summary",
        arguments: [
            ForgeKind.github, .gitea, .gitlab,
        ])
    func outsideTheDiff(kind: ForgeKind) async throws {
        let fixture = try await Fixture(kind)
        try fixture.forge.pullRequest(2, changes: ["\(Self.file):10"])  // Kiln's diff says 10 and 11
        try await fixture.integrate([Self.warning(11)], head: Self.shas[0])
        #expect(await fixture.publisher.round() == 1)
        let calls = try fixture.forge.reviewCalls()
        #expect(calls.contains { $0.code == (kind == .gitlab ? 400 : 422) }, "\(calls.map { "\($0.method) \($0.path) \($0.code)" })")
        let summary = try #require(calls.last { $0.method == "POST" && (200..<300).contains($0.code) }?.body?["body"] as? String)
        #expect(summary.contains("kiln:summary") && summary.contains("variable 'x11' was never used"), "\(summary)")
    }
}

extension ReviewPublisherTests {
    @Test(
        "A host none of whose bots reviews still posts the reviews in the outbox (another host's), looking once a tick of its clock, not at every change"
    )
    func noReviewingBot() async throws {
        let fixture = try await Fixture(.github, reviewing: false, tick: .seconds(3600), timers: true)
        try await fixture.integrate([Self.warning(10)], head: Self.shas[0])
        #expect(await fixture.publisher.round() == 1, "the first look delivers")
        try await fixture.integrate([Self.failure], head: Self.shas[1])
        #expect(await fixture.publisher.round() == 0, "within the tick, a change is not looked at")
        #expect(try await fixture.store.reviews(limit: 1).first?.delivery == .queued)
        fixture.clock.advance(by: 1800)
        #expect(await fixture.publisher.round() == 0, "half a tick later, still not")
        fixture.clock.advance(by: 1800)
        #expect(await fixture.publisher.round() == 1, "a tick later, it is")
        #expect(try await fixture.store.reviews(limit: 1).first?.delivery == .sent)
    }
}
