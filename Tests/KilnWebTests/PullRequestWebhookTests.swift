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

@Suite("Pull request webhooks and pages")
struct PullRequestWebhookTests {
    /// GitHub's own examples (`Tests/Fixtures/forge-payloads/github/`), as GitHub sends them.
    static func example(_ name: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Executables.packageRoot + "/Tests/Fixtures/forge-payloads/github/\(name).json"))
    }

    static let head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"

    /// Follows the examples' repository (Codertocat/Hello-World, branch master).
    static func hello(pullRequests: String = "true") -> String {
        "repository:\n  url: https://github.com/Codertocat/Hello-World.git\n  branch: master\nschedule:\n  poll: 0\npull-requests: \(pullRequests)\n"
    }

    static func signed(_ body: Data, event: String, forge: String) -> [String: String] {
        switch forge {
        case "gitlab": ["X-Gitlab-Event": event, "X-Gitlab-Token": WebFixture.secret]
        case "gitea": ["X-Gitea-Event": event, "X-Gitea-Signature": WebhookTests.hmac(body)]
        default: ["X-GitHub-Event": event, "X-Hub-Signature-256": "sha256=" + WebhookTests.hmac(body)]
        }
    }

    /// GitHub's form-encoded delivery of `json`: `payload=<the JSON, form-encoded>`.
    static func formEncoded(_ json: Data) -> Data {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._* ")
        let encoded = String(decoding: json, as: UTF8.self).addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        return Data(("payload=" + encoded.replacingOccurrences(of: " ", with: "+")).utf8)
    }

    @Test(
        "GitHub's opened example queues its head with the pull request; the form-encoded delivery of it reaches the same integration; closed cancels it"
    )
    func github() async throws {
        let web = try await WebFixture.start(bots: ["hello": Self.hello(), "branch-only": Self.hello(pullRequests: "false")])
        defer { Task { await web.stop() } }
        let opened = try Self.example("pull_request-opened")
        let reply = try await web.post("/hooks/github", body: opened, headers: Self.signed(opened, event: "pull_request", forge: "github"))
        #expect(reply.status == 202, "\(reply.text)")
        let queued = try #require(try await web.store.botOverviews().first { $0.state.name == "hello" }?.queued.first)
        #expect(queued.commit == Self.head && queued.cause == .webhook)
        #expect(
            queued.pullRequest
                == PullRequest(
                    number: 2, title: "Update the README with new information.", author: "Codertocat",
                    url: "https://github.com/Codertocat/Hello-World/pull/2", head: "changes", base: "master", ref: "refs/pull/2/head", fork: false))
        #expect(try await web.store.botOverviews().first { $0.state.name == "branch-only" }?.queued.isEmpty == true)

        let form = Self.formEncoded(opened)
        var headers = Self.signed(form, event: "pull_request", forge: "github")
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        let again = try await web.post("/hooks/github", body: form, headers: headers)
        #expect(again.status == 202, "\(again.text)")
        let reached = try #require((try again.json() as? [String: Any])?["integrations"] as? [[String: Any]])
        #expect(reached.first?["number"] as? Int == queued.number && reached.first?["coalesced"] as? Bool == true)

        let closed = try Self.example("pull_request-closed")
        let close = try await web.post("/hooks/github", body: closed, headers: Self.signed(closed, event: "pull_request", forge: "github"))
        let closeAnswer = try close.json() as? [String: Any]
        #expect(close.status == 200 && closeAnswer?["outcome"] as? String == "closed", "\(close.text)")
        let canceled = try #require(try await web.store.integration(bot: "hello", number: queued.number)).integration
        #expect(canceled.result == .canceled && canceled.reason == .pullRequestClosed(number: 2, merged: false))
        #expect(try await web.store.pullRequests(bot: "hello", includeClosed: false).isEmpty)
        let deliveries = try await web.store.webhookDeliveries(limit: 3).map(\.outcome)
        #expect(deliveries == [.closed, .queued, .queued])
    }

    @Test("A form-encoded push is accepted too, and a form without a payload is 400")
    func formEncodedPush() async throws {
        let web = try await WebFixture.start(bots: WebhookTests.bots)
        defer { Task { await web.stop() } }
        let form = Self.formEncoded(WebhookTests.github())
        var headers = Self.signed(form, event: "push", forge: "github")
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        let reply = try await web.post("/hooks/github", body: form, headers: headers)
        #expect(reply.status == 202, "\(reply.text)")
        #expect(try await web.store.botOverviews().first { $0.state.name == "hub" }?.queued.first?.commit == WebhookTests.commit)
        let empty = Data("other=1".utf8)
        headers = Self.signed(empty, event: "push", forge: "github")
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        #expect(try await web.post("/hooks/github", body: empty, headers: headers).status == 400)
    }

    /// A merge request event as GitLab documents it (trimmed to what GitLab always sends).
    static func gitlab(action: String, oldrev: String? = "0000000000000000000000000000000000000001", sourceProject: Int = 14) -> Data {
        var attributes: [String: Any] = [
            "iid": 12, "title": "Use <b>the</b> faster path", "state": "opened", "action": action, "source_branch": "fast", "target_branch": "main",
            "source_project_id": sourceProject, "target_project_id": 14, "url": "https://gitlab.example.com/example/app/-/merge_requests/12",
            "last_commit": ["id": WebhookTests.commit, "message": "Faster"],
            "source": ["path_with_namespace": sourceProject == 14 ? "example/app" : "someone/app"],
            "target": ["path_with_namespace": "example/app", "git_http_url": "https://gitlab.example.com/example/app.git"],
        ]
        if let oldrev { attributes["oldrev"] = oldrev }
        return WebhookTests.json([
            "object_kind": "merge_request", "event_type": "merge_request", "user": ["name": "Bob", "username": "bob"],
            "project": [
                "id": 14, "web_url": "https://gitlab.example.com/example/app", "git_ssh_url": "git@gitlab.example.com:example/app.git",
                "git_http_url": "https://gitlab.example.com/example/app.git", "path_with_namespace": "example/app",
            ],
            "object_attributes": attributes,
        ])
    }

    /// A pull request event as Gitea and Forgejo document it.
    static func gitea(action: String, fork: Bool = false) -> Data {
        let base: [String: Any] = ["full_name": "example/app", "clone_url": "https://gitea.example.com/example/app.git"]
        let headRepository: [String: Any] = fork ? ["full_name": "mallory/app", "clone_url": "https://gitea.example.com/mallory/app.git"] : base
        return WebhookTests.json([
            "action": action, "number": 5,
            "pull_request": [
                "number": 5, "title": "Gitea change", "user": ["login": "carol", "username": "carol"],
                "html_url": "https://gitea.example.com/example/app/pulls/5",
                "head": ["label": fork ? "mallory:topic" : "topic", "ref": "topic", "sha": WebhookTests.commit, "repo": headRepository],
                "base": ["label": "main", "ref": "main", "sha": "28e1879d029cb852e4844d9c718537df08844e03", "repo": base],
            ],
            "repository": base,
        ])
    }

    @Test("GitLab merge requests: open queues, an update without new commits does nothing, merge cancels; the MR ref is GitLab's")
    func gitlab() async throws {
        let bot = Bots.following("https://gitlab.example.com/example/app.git") + "pull-requests: true\n"
        let web = try await WebFixture.start(bots: ["lab": bot])
        defer { Task { await web.stop() } }
        func send(_ body: Data) async throws -> WebFixture.Reply {
            try await web.post("/hooks/gitlab", body: body, headers: Self.signed(body, event: "Merge Request Hook", forge: "gitlab"))
        }
        let open = try await send(Self.gitlab(action: "open", oldrev: nil))
        #expect(open.status == 202, "\(open.text)")
        let queued = try #require(try await web.store.botOverviews().first?.queued.first)
        #expect(queued.pullRequest?.ref == "refs/merge-requests/12/head" && queued.pullRequest?.author == "bob" && queued.pullRequest?.number == 12)
        let relabeled = try await send(Self.gitlab(action: "update", oldrev: nil))
        let relabeledAnswer = try relabeled.json() as? [String: Any]
        #expect(relabeled.status == 200 && relabeledAnswer?["outcome"] as? String == "ignored")
        #expect(try await send(Self.gitlab(action: "update")).status == 202)
        let fork = try await send(Self.gitlab(action: "open", sourceProject: 99))
        #expect(fork.status == 200)
        #expect(((try fork.json() as? [String: Any])?["detail"] as? String)?.contains("fork") == true)
        let merged = try await send(Self.gitlab(action: "merge"))
        #expect(merged.status == 200)
        #expect(try await web.store.integration(bot: "lab", number: queued.number)?.integration.result == .canceled)
    }

    @Test("Gitea and Forgejo pull requests: opened and synchronized queue; a fork's only with forks: true")
    func gitea() async throws {
        let text = Bots.following("https://gitea.example.com/example/app.git")
        let web = try await WebFixture.start(bots: ["tea": text + "pull-requests: true\n", "forks": text + "pull-requests: {forks: true}\n"])
        defer { Task { await web.stop() } }
        func send(_ body: Data, event: String = "pull_request") async throws -> WebFixture.Reply {
            try await web.post("/hooks/gitea", body: body, headers: Self.signed(body, event: event, forge: "gitea"))
        }
        let opened = try await send(Self.gitea(action: "opened"))
        #expect(opened.status == 202)
        let reached = try #require((try opened.json() as? [String: Any])?["integrations"] as? [[String: Any]])
        #expect(Set(reached.compactMap { $0["bot"] as? String }) == ["tea", "forks"])
        #expect(try await send(Self.gitea(action: "synchronized"), event: "pull_request_sync").status == 202)
        #expect(try await send(Self.gitea(action: "edited")).status == 200)
        let fork = try await send(Self.gitea(action: "opened", fork: true))
        #expect(fork.status == 202)
        let forkReached = try #require((try fork.json() as? [String: Any])?["integrations"] as? [[String: Any]])
        #expect(forkReached.compactMap { $0["bot"] as? String } == ["forks"])
        let forked = try #require(try await web.store.botOverviews().first { $0.state.name == "forks" }?.queued.first?.pullRequest)
        #expect(forked.fork && forked.head == "mallory:topic" && forked.ref == "refs/pull/5/head")
    }

    @Test("Pages and API show the pull request, escaped; the bot page lists open pull requests; counts read as English")
    func pages() async throws {
        let web = try await WebFixture.start(bots: ["hello": Self.hello()])
        defer { Task { await web.stop() } }
        let pull = PullRequest(
            number: 9, title: "<script>alert('pr')</script>", author: "eve", url: "javascript:alert(1)", head: "x", base: "master",
            ref: "refs/pull/9/head", fork: true)
        let queued = try await web.store.enqueue(
            QueueRequest(bot: "hello", cause: .webhook, commit: Self.head, branch: "master", pullRequest: pull), now: Date())
        let claim = try #require(try await web.store.claim(queued.integration.id, owner: "test", now: Date()))
        let warning = IntegrationIssue(type: .warning, message: "unused", file: "a.swift", line: 1, fingerprint: "w")
        try await web.store.complete(claim, outcome: IntegrationOutcome(result: .warnings, issues: [warning]), now: Date())

        let page = try await web.get("/bots/hello/integrations/1").text
        #expect(
            page.contains("&lt;script&gt;alert(&#39;pr&#39;)&lt;/script&gt;") || page.contains("&lt;script&gt;alert(&#x27;pr&#x27;)&lt;/script&gt;"))
        #expect(!page.contains("<script>alert"))
        #expect(!page.contains("javascript:"), "a pull request link that is not http(s) is not linked")
        #expect(page.contains("0 errors, 1 warning, 0 test failures of 0 tests"), "counts read as English")
        let bot = try await web.get("/bots/hello").text
        #expect(bot.contains("Open pull requests") && bot.contains("PR #9") && !bot.contains("<script>alert"))

        let api = try #require(try await web.get("/api/bots/hello/integrations/1").json() as? [String: Any])
        let json = try #require(api["pullRequest"] as? [String: Any])
        #expect(json["number"] as? Int == 9 && json["title"] as? String == pull.title && json["author"] as? String == "eve")
        #expect(Set(json.keys) == ["number", "title", "author", "url", "head", "base"])
        try await web.integrate("hello", result: .succeeded)
        let branch = try #require(try await web.get("/api/bots/hello/integrations/2").json() as? [String: Any])
        #expect(branch["pullRequest"] is NSNull)
    }
}
