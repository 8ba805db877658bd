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

import Crypto
import Foundation
import KilnCore
import KilnStore
import KilnTestSupport
import Testing

@Suite("Webhooks")
struct WebhookTests {
    static let commit = "6113728f27ae82c7b1a177c8d03f9e96e0adf246"

    /// Payloads in each forge's documented push format (trimmed to the fields forges always send).
    static func github(_ name: String = "example/app", ref: String = "refs/heads/main", after: String = commit) -> Data {
        json([
            "ref": ref, "before": "0000000000000000000000000000000000000000", "after": after, "deleted": false,
            "repository": [
                "full_name": name, "html_url": "https://github.com/\(name)", "clone_url": "https://github.com/\(name).git",
                "ssh_url": "git@github.com:\(name).git", "git_url": "git://github.com/\(name).git",
            ],
            "pusher": ["name": "alice", "email": "alice@example.com"],
            "head_commit": ["id": after, "message": "Fix the build"],
        ])
    }

    static func gitlab() -> Data {
        json([
            "object_kind": "push", "event_name": "push", "ref": "refs/heads/main", "before": "95790bf891e76fee5e1747ab589903a6a1f80f22",
            "after": commit, "checkout_sha": commit,
            "project": [
                "name": "App", "web_url": "https://gitlab.example.com/example/app", "git_ssh_url": "git@gitlab.example.com:example/app.git",
                "git_http_url": "https://gitlab.example.com/example/app.git",
            ],
            "repository": ["name": "App", "url": "git@gitlab.example.com:example/app.git", "homepage": "https://gitlab.example.com/example/app"],
        ])
    }

    static func gitea() -> Data {
        json([
            "ref": "refs/heads/main", "before": "28e1879d029cb852e4844d9c718537df08844e03", "after": commit,
            "compare_url": "https://gitea.example.com/example/app/compare/28e1879d029c...6113728f27ae",
            "repository": [
                "full_name": "example/app", "html_url": "https://gitea.example.com/example/app",
                "ssh_url": "git@gitea.example.com:example/app.git", "clone_url": "https://gitea.example.com/example/app.git",
            ],
        ])
    }

    static func generic(_ url: String = "https://git.example.com/example/app") -> Data {
        json(["repository": url, "branch": "main", "commit": commit])
    }

    static func json(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }

    static func hmac(_ body: Data, _ secret: String = WebFixture.secret) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    static let bots = [
        "hub": Bots.following("https://GitHub.com/example/app/"),
        "lab": Bots.following("ssh://git@gitlab.example.com/example/app.git"),
        "tea": Bots.following("https://user:token@gitea.example.com/example/app.git/"),
        "any": Bots.following("https://git.example.com/example/app.git"),
        "other-branch": Bots.following("https://github.com/example/app.git", branch: "release"),
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var forge: String
        var bot: String
        var body: Data
        var event: [String: String]
        var signed: @Sendable (Data, String) -> [String: String]
        var testDescription: String { forge }
    }

    static let cases: [Case] = [
        Case(forge: "github", bot: "hub", body: github(), event: ["X-GitHub-Event": "push"]) { body, secret in
            ["X-Hub-Signature-256": "sha256=" + hmac(body, secret)]
        },
        Case(forge: "gitlab", bot: "lab", body: gitlab(), event: ["X-Gitlab-Event": "Push Hook"]) { _, secret in ["X-Gitlab-Token": secret] },
        Case(forge: "gitea", bot: "tea", body: gitea(), event: ["X-Gitea-Event": "push"]) { body, secret in
            ["X-Gitea-Signature": hmac(body, secret)]
        },
        Case(forge: "generic", bot: "any", body: generic(), event: [:]) { body, secret in ["X-Kiln-Signature": "sha256=" + hmac(body, secret)] },
    ]

    @Test("A signed push queues an integration of the bot following that repository and branch", arguments: cases)
    func signedPush(_ forge: Case) async throws {
        let web = try await WebFixture.start(bots: Self.bots)
        defer { Task { await web.stop() } }
        let reply = try await web.post(
            "/hooks/\(forge.forge)", body: forge.body, headers: forge.event.merging(forge.signed(forge.body, WebFixture.secret)) { a, _ in a })
        #expect(reply.status == 202, "\(reply.text)")
        let answer = try #require(try reply.json() as? [String: Any])
        let reached = try #require(answer["integrations"] as? [[String: Any]])
        #expect(reached.map { $0["bot"] as? String } == [forge.bot])
        let queued = try #require(try await web.store.botOverviews().first { $0.state.name == forge.bot }?.queued.first)
        #expect(queued.cause == .webhook)
        #expect(queued.commit == Self.commit)
        let delivery = try #require(try await web.store.webhookDeliveries(limit: 1).first)
        #expect(delivery.forge == forge.forge)
        #expect(delivery.outcome == .queued)
        #expect(delivery.statusCode == 202)
        #expect(delivery.integrations == [IntegrationReference(bot: forge.bot, number: 1)])
        #expect(delivery.repository?.contains("token") == false)
    }

    @Test("A wrong or missing signature is 401, recorded, and queues nothing", arguments: cases)
    func badSignature(_ forge: Case) async throws {
        let web = try await WebFixture.start(bots: Self.bots)
        defer { Task { await web.stop() } }
        let wrong = try await web.post(
            "/hooks/\(forge.forge)", body: forge.body, headers: forge.event.merging(forge.signed(forge.body, "not the secret")) { a, _ in a })
        #expect(wrong.status == 401)
        #expect((try wrong.json() as? [String: Any])?["outcome"] as? String == "unauthorized")
        let missing = try await web.post("/hooks/\(forge.forge)", body: forge.body, headers: forge.event)
        #expect(missing.status == 401)
        // Signed for another body.
        let tampered = try await web.post(
            "/hooks/\(forge.forge)", body: forge.body + Data(" ".utf8),
            headers: forge.event.merging(forge.signed(forge.body, WebFixture.secret)) { a, _ in a })
        #expect(tampered.status == (forge.forge == "gitlab" ? 202 : 401))
        if forge.forge != "gitlab" {
            #expect(try await web.store.botOverviews().allSatisfy { $0.queued.isEmpty })
        }
        let deliveries = try await web.store.webhookDeliveries(limit: 10)
        #expect(deliveries.filter { $0.statusCode == 401 }.count == (forge.forge == "gitlab" ? 2 : 3))
    }

    @Test("ping is 200; no matching bot is 200; a deleted branch is 200; malformed is 400; over 1 MiB is 413")
    func otherAnswers() async throws {
        let web = try await WebFixture.start(bots: Self.bots)
        defer { Task { await web.stop() } }
        func github(_ body: Data, event: String = "push") async throws -> WebFixture.Reply {
            try await web.post("/hooks/github", body: body, headers: ["X-GitHub-Event": event, "X-Hub-Signature-256": "sha256=" + Self.hmac(body)])
        }
        let ping = try await github(Self.json(["zen": "Keep it logically awesome.", "hook_id": 1]), event: "ping")
        #expect(ping.status == 200)
        let stranger = try await github(Self.github("someone/else"))
        #expect(stranger.status == 200)
        #expect((try stranger.json() as? [String: Any])?["detail"] as? String == "no bot follows https://github.com/someone/else.git branch main")
        let tag = try await github(Self.github(ref: "refs/tags/v1.0"))
        #expect(tag.status == 200)
        let deleted = try await github(Self.github(after: "0000000000000000000000000000000000000000"))
        #expect(deleted.status == 200)
        #expect(try await github(Data("{not json".utf8)).status == 400)
        #expect(try await github(Self.json(["ref": "refs/heads/main"])).status == 400)
        #expect(try await github(Self.github(after: "not-a-sha")).status == 400)
        let huge = Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
        #expect(try await github(huge).status == 413)
        #expect(try await web.store.botOverviews().allSatisfy { $0.queued.isEmpty })
        let outcomes = try await web.store.webhookDeliveries(limit: 20).map(\.outcome)
        #expect(
            outcomes.map(\.rawValue).sorted() == ["ignored", "ignored", "ignored", "ignored", "malformed", "malformed", "malformed", "too-large"])
    }

    @Test("A bot with its own secret takes only deliveries signed with it")
    func perBotSecret() async throws {
        let directory = try TemporaryDirectory()
        let secretFile = try directory.write("hub-secret", "the hub's own\n")
        let web = try await WebFixture.start(bots: ["hub": Bots.following("https://github.com/example/app", secretFile: secretFile)])
        defer { Task { await web.stop() } }
        let body = Self.github()
        let server = try await web.post(
            "/hooks/github", body: body, headers: ["X-GitHub-Event": "push", "X-Hub-Signature-256": "sha256=" + Self.hmac(body)])
        #expect(server.status == 200)
        let own = try await web.post(
            "/hooks/github", body: body, headers: ["X-GitHub-Event": "push", "X-Hub-Signature-256": "sha256=" + Self.hmac(body, "the hub's own")])
        #expect(own.status == 202)
    }

    @Test("A bot whose secret file cannot be read takes no delivery, signed or not, even without a server secret")
    func unreadableBotSecret() async throws {
        let web = try await WebFixture.start(
            bots: ["hub": Bots.following("https://github.com/example/app", secretFile: "/nonexistent/hub-secret")], secret: nil)
        defer { Task { await web.stop() } }
        let body = Self.github()
        let unsigned = try await web.post("/hooks/github", body: body, headers: ["X-GitHub-Event": "push"])
        #expect(unsigned.status == 401)
        let signed = try await web.post(
            "/hooks/github", body: body, headers: ["X-GitHub-Event": "push", "X-Hub-Signature-256": "sha256=" + Self.hmac(body)])
        #expect(signed.status == 401)
        #expect(try await web.store.integrations(bot: "hub", limit: 10, before: nil).isEmpty)
        #expect(try await web.store.webhookDeliveries(limit: 10).map(\.statusCode) == [401, 401])
    }

    @Test("A burst of signed pushes loses nothing: every delivery answered 2xx and recorded, one integration per push")
    func burst() async throws {
        let web = try await WebFixture.start(bots: Self.bots)
        defer { Task { await web.stop() } }
        let body = Self.github()
        let headers = ["X-GitHub-Event": "push", "X-Hub-Signature-256": "sha256=" + Self.hmac(body)]
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<200 { group.addTask { try await web.post("/hooks/github", body: body, headers: headers).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 == 202 })
        #expect(try await web.store.webhookDeliveries(limit: 1000).count == 200)
        #expect(try await web.store.integrations(bot: "hub", limit: 10, before: nil).count == 1)
        #expect(try await web.store.webhookDeliveries(limit: 1000).allSatisfy { $0.integrations == [IntegrationReference(bot: "hub", number: 1)] })
    }
}
