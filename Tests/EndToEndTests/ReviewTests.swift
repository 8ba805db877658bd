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

/// `forge.review` end to end: `kiln serve`, a real package whose pull request a GitHub webhook
/// announces, and the forge double checking each review request against GitHub's API.
@Suite("Pull request reviews")
struct ReviewTests {
    static func library(_ lines: [String]) -> [String: String] {
        ["Sources/Lib/Lib.swift": (["public func add(_ a: Int, _ b: Int) -> Int {"] + lines + ["}"]).joined(separator: "\n") + "\n"]
    }

    @Test(
        "A pull request's new warning on a changed line is a line comment and its failing tests the summary; the next push fixing the warning resolves its comment and edits the summary, posting nothing new"
    )
    func review() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        try repo.git("branch", "-m", "master")
        try repo.commit("A plain add", files: Self.library(["    return a + b"]))
        let forge = try await ForgeDouble.start()
        let home = try TemporaryDirectory()
        try home.write("token", forge.token + "\n")
        let bot =
            "repository: {url: '\(repo.url)', branch: master}\nschedule: {poll: 10s}\npull-requests: true\n"
            + "forge: {kind: github, api-url: '\(forge.apiURL)', token-file: '\(home.url("token"))', review: true}\n"
        let served = try await ServedHome(bots: ["app": bot], config: "executors: 1\npublic-url: https://ci.example.com/\n", seeded: ["app"])
        let port = try await served.server.waitForPort()
        try await served.eventually("the branch's first integration", timeout: .seconds(120)) {
            try await served.integrations("app").first?.step == .completed
        }

        // Bob's pull request: an unused value (line 2, a warning) and a subtraction (line 3) that
        // fails the tests, whose assertions it does not touch.
        try repo.git("checkout", "-q", "-b", "changes")
        let first = try repo.commit("Subtract", files: Self.library(["    let other = 2", "    return a - b"]), author: .bob)
        try repo.git("checkout", "-q", "master")
        try PullRequestTests.publish(first, in: repo)
        try forge.pullRequest(2, changes: ["Sources/Lib/Lib.swift:2", "Sources/Lib/Lib.swift:3"])
        let opened = try PullRequestTests.delivery("pull_request-opened", repository: repo.url, head: first)
        #expect(try await PullRequestTests.post(opened, port: port).status == 202)
        var calls = try await forge.waitForReviewCalls(timeout: .seconds(120)) { calls in calls.contains { $0.path.hasSuffix("/issues/2/comments") } }
        #expect(calls.allSatisfy { (200..<300).contains($0.code) }, "\(calls.map { "\($0.method) \($0.path) \($0.code)" })")
        let review = try #require(calls.first { $0.method == "POST" && $0.path.hasSuffix("/pulls/2/reviews") })
        #expect(review.body?["commit_id"] as? String == first && review.body?["event"] as? String == "COMMENT")
        let comments = review.body?["comments"] as? [[String: Any]] ?? []
        #expect(comments.count == 1, "\(comments)")
        #expect(comments.first?["path"] as? String == "Sources/Lib/Lib.swift" && comments.first?["line"] as? Int == 2)
        #expect(comments.first?["side"] as? String == "RIGHT")
        let comment = comments.first?["body"] as? String ?? ""
        #expect(
            comment.contains("new warning") && comment.contains("'other'") && comment.contains("https://ci.example.com/bots/app/integrations/"),
            "\(comment)")
        let summary = try #require(calls.first { $0.method == "POST" && $0.path.hasSuffix("/issues/2/comments") }?.body?["body"] as? String)
        #expect(summary.contains("new test-failure") || summary.contains("test-failure:"), "\(summary)")
        #expect(!summary.contains("'other'"), "the line comment's finding is not in the summary")

        // Bob's next push drops the unused value; the subtraction stays.
        try repo.git("checkout", "-q", "changes")
        let second = try repo.commit("Tidy", files: Self.library(["    return a - b"]), author: .bob)
        try repo.git("checkout", "-q", "master")
        try PullRequestTests.publish(second, in: repo)
        try forge.pullRequest(2, changes: ["Sources/Lib/Lib.swift:2"])
        var synchronize =
            try JSONSerialization.jsonObject(with: try PullRequestTests.delivery("pull_request-opened", repository: repo.url, head: second))
            as? [String: Any]
        synchronize?["action"] = "synchronize"
        #expect(try await PullRequestTests.post(try JSONSerialization.data(withJSONObject: synchronize ?? [:]), port: port).status == 202)
        let before = calls.count
        calls = try await forge.waitForReviewCalls(timeout: .seconds(120)) { calls in
            calls.dropFirst(before).contains { $0.method == "PATCH" && $0.path.contains("/issues/comments/") }
        }
        let later = calls.dropFirst(before)
        #expect(!later.contains { $0.method == "POST" }, "nothing posted again: \(later.map { "\($0.method) \($0.path)" })")
        let resolved = try #require(later.first { $0.method == "PATCH" && $0.path.contains("/pulls/comments/") })
        #expect((resolved.body?["body"] as? String)?.contains("resolved in \(second.prefix(10))") == true)
        let bodies = try forge.commentBodies().values
        #expect(bodies.filter { $0.contains("kiln:summary") }.count == 1, "one summary, edited in place")
        // The forge has it all once the outbox says so (recorded after the last answer).
        try await served.eventually("both reviews recorded as delivered") {
            let reviews = try await served.store().reviews(limit: 5)
            return reviews.count == 2 && reviews.allSatisfy { $0.delivery == .sent }
        }
    }
}
