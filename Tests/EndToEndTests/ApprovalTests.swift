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

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `pull-requests: {forks: approve}` end to end: `kiln serve`, a real repository whose pull refs
/// the tests make, each forge's pull request events as it sends them, and the forge double on
/// loopback answering commit statuses and member lookups as each forge's API does.
@Suite("A stranger's pull request from a fork waits for a member's approval")
struct ApprovalTests {
    enum Kind: String, CaseIterable, Sendable {
        case github, gitlab, gitea

        /// Where the forge keeps pull request `number`'s head in the base repository.
        func ref(_ number: Int) -> String { self == .gitlab ? "refs/merge-requests/\(number)/head" : "refs/pull/\(number)/head" }
    }

    /// A fork's pull request `number` by `author` with head `head`, opened or given a new commit,
    /// as `kind` delivers it: the path, its event headers and the body.
    static func event(
        _ kind: Kind, repository: String, number: Int, head: String, author: String, opened: Bool
    ) throws -> (path: String, headers: [String: String], body: Data) {
        switch kind {
        case .github:
            var json =
                try JSONSerialization.jsonObject(
                    with: try PullRequestTests.delivery("pull_request-opened", repository: repository, head: head, fork: true)) as? [String: Any]
                ?? [:]
            var pull = json["pull_request"] as? [String: Any] ?? [:]
            pull["number"] = number
            pull["user"] = ["login": author, "id": 7, "type": "User"]
            var base = pull["base"] as? [String: Any] ?? [:]
            base["ref"] = "main"
            pull["base"] = base
            json["pull_request"] = pull
            json["number"] = number
            json["action"] = opened ? "opened" : "synchronize"
            return ("/hooks/github", ["X-GitHub-Event": "pull_request"], try JSONSerialization.data(withJSONObject: json))
        case .gitlab:
            var attributes: [String: Any] = [
                "iid": number, "title": "A change from outside", "state": "opened", "action": opened ? "open" : "update", "source_branch": "topic",
                "target_branch": "main", "source_project_id": 99, "target_project_id": 14,
                "url": "https://gitlab.example.com/team/app/-/merge_requests/\(number)",
                "last_commit": ["id": head, "message": "change"], "source": ["path_with_namespace": "\(author)/app"],
                "target": ["path_with_namespace": "team/app", "git_http_url": repository],
            ]
            if !opened { attributes["oldrev"] = "0000000000000000000000000000000000000001" }
            let json: [String: Any] = [
                "object_kind": "merge_request", "event_type": "merge_request", "user": ["name": author, "username": author],
                "project": ["id": 14, "git_http_url": repository, "path_with_namespace": "team/app"], "object_attributes": attributes,
            ]
            return ("/hooks/gitlab", ["X-Gitlab-Event": "Merge Request Hook"], try JSONSerialization.data(withJSONObject: json))
        case .gitea:
            let base: [String: Any] = ["full_name": "team/app", "clone_url": repository]
            let json: [String: Any] = [
                "action": opened ? "opened" : "synchronized", "number": number,
                "pull_request": [
                    "number": number, "title": "A change from outside", "user": ["login": author, "username": author],
                    "html_url": "https://gitea.example.com/team/app/pulls/\(number)",
                    "head": [
                        "label": "\(author):topic", "ref": "topic", "sha": head,
                        "repo": ["full_name": "\(author)/app", "clone_url": "https://gitea.example.com/\(author)/app.git"],
                    ],
                    "base": ["label": "main", "ref": "main", "sha": head, "repo": base],
                ],
                "repository": base,
            ]
            return (
                "/hooks/gitea", ["X-Gitea-Event": opened ? "pull_request" : "pull_request_sync"], try JSONSerialization.data(withJSONObject: json)
            )
        }
    }

    static func send(
        _ request: (path: String, headers: [String: String], body: Data), port: Int, token: String? = nil
    ) async throws -> (status: Int, text: String) {
        var http = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(request.path)")))
        http.httpMethod = "POST"
        http.httpBody = request.body
        http.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for (name, value) in request.headers { http.setValue(value, forHTTPHeaderField: name) }
        if let token { http.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (answer, response) = try await URLSession.shared.data(for: http)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: answer, as: UTF8.self))
    }

    @Test(
        "A stranger's waits (its status says so) until a member approves it on the API or with kiln approve; a new push waits again; a trusted author's and a member's (as the forge says) run at once",
        arguments: Kind.allCases)
    func approval(_ kind: Kind) async throws {
        let repo = try GitFixture(branch: "main")
        try repo.commit("first", files: ["README.md": "not a package\n"])
        let forge = try await ForgeDouble.start()
        try forge.members(["maria"])
        let tokens = try TemporaryDirectory()
        try tokens.write("token", forge.token)
        let bot =
            "repository: {url: '\(repo.url)', branch: main}\nschedule: {poll: 0}\ntest: {enabled: false}\n"
            + "pull-requests: {forks: approve, trusted: [Trusty]}\n"
            + "forge: {kind: \(kind.rawValue), api-url: '\(forge.apiURL)', token-file: '\(tokens.url("token"))'}\n"
        let served = try await ServedHome(bots: ["app": bot])
        let port = try await served.server.waitForPort()
        let made = try await runProcess(Executables.kiln, ["token", "add", "approver", "--role", "member"], in: served.home.path)
        let member = try #require(made.standardOutput.split(separator: "\n").last.map(String.init), "\(made.standardError)")
        func integration(_ number: Int) async throws -> Integration? { try await served.integrations("app").first { $0.number == number } }
        func push(_ number: Int, _ text: String, by author: String, opened: Bool = true) async throws -> String {
            let head = try repo.commit(text, files: ["a.txt": text + "\n"], author: .bob)
            try repo.git("update-ref", kind.ref(number), head)
            let answer = try await Self.send(
                try Self.event(kind, repository: repo.url, number: number, head: head, author: author, opened: opened), port: port)
            #expect(answer.status == 202, "\(answer.text)")
            return head
        }

        // A stranger's pull request waits, the forge asked about its author and told why.
        let first = try await push(2, "one", by: "mallory")
        try await served.eventually("the forge asked whether mallory is a member") { forge.memberLookups().contains { $0.contains("mallory") } }
        let waiting = try await forge.waitForCalls { $0.contains { $0.sha == first } }.filter { $0.sha == first }
        #expect(waiting.map(\.state) == ["pending"] && waiting.first?.description == "Integration 1 is waiting for a member's approval", "\(waiting)")
        try await Task.sleep(for: .seconds(1))
        let held = try #require(try await integration(1))
        #expect(held.step == .awaitingApproval && held.startedAt == nil, "\(held)")
        let json = try await PullRequestTests.get("/api/bots/app/integrations/1", port: port)
        #expect(json.contains("\"step\":\"awaiting-approval\""), "\(json)")
        let page = try await PullRequestTests.get("/bots/app/integrations/1", port: port)
        #expect(page.contains("Waiting for a member&#39;s approval") || page.contains("Waiting for a member&#x27;s approval"), "\(page)")

        // Nobody without a member's token approves it; a member does, and it runs.
        let approve = (path: "/api/bots/app/integrations/1/approve", headers: [String: String](), body: Data())
        #expect(try await Self.send(approve, port: port).status == 401)
        let approved = try await Self.send(approve, port: port, token: member)
        #expect(approved.status == 202, "\(approved.text)")
        try await served.eventually("the approved integration ran", timeout: .seconds(60)) { try await integration(1)?.step == .completed }
        let ran = try #require(try await integration(1))
        #expect(ran.startedAt != nil && ran.result != .canceled && ran.approvedBy == "approver", "\(ran)")
        #expect(try await Self.send(approve, port: port, token: member).status == 409, "approved once")

        // A new push waits again; `kiln approve` lets it run.
        let second = try await push(2, "two", by: "mallory", opened: false)
        try await served.eventually("the new head waiting") { try await integration(2)?.step == .awaitingApproval }
        #expect(try await integration(2)?.commit == second)
        let cli = try await runProcess(Executables.kiln, ["approve", "app", "2"], in: served.home.path)
        #expect(cli.status == 0 && cli.standardOutput.contains("approved app #2"), "\(cli.standardOutput) \(cli.standardError)")
        try await served.eventually("the second head ran", timeout: .seconds(60)) { try await integration(2)?.step == .completed }
        #expect(try await integration(2)?.approvedBy?.contains("on the command line") == true)
        let again = try await runProcess(Executables.kiln, ["approve", "app", "2"], in: served.home.path)
        #expect(again.status == 1 && again.standardError.contains("waits for no approval"), "\(again.standardError)")

        // A trusted author's runs at once: it never waits (its only statuses are queued, running, done).
        let trusted = try await push(3, "three", by: "trusty")
        try await served.eventually("the trusted author's ran", timeout: .seconds(60)) { try await integration(3)?.step == .completed }
        #expect(try await integration(3)?.approvedBy == nil)
        // A member's, as the forge says: approved for its author by Kiln, and run.
        _ = try await push(4, "four", by: "maria")
        try await served.eventually("the member's ran", timeout: .seconds(60)) { try await integration(4)?.step == .completed }
        #expect(try await integration(4)?.approvedBy == "maria (a member, as \(kind.rawValue) says)")

        let calls = try await forge.waitForCalls { $0.contains { $0.sha == trusted && $0.state != "pending" && $0.state != "running" } }
        #expect(!calls.contains { $0.sha == trusted && $0.description.contains("approval") }, "\(calls.filter { $0.sha == trusted })")
        let audit = try await served.store().auditEvents(since: nil, limit: 50).filter { $0.action == .approved }
        #expect(Set(audit.compactMap(\.number)) == [1, 2, 4], "\(audit)")
        #expect(audit.contains { $0.number == 1 && $0.token == "approver" })
        _ = try await served.server.terminate()
    }
}
