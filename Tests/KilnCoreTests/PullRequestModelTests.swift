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
import Testing

@Suite("Pull requests and commit statuses: configuration")
struct PullRequestModelTests {
    @Test("pull-requests and forge decode, with the forge's kind and API taken from a public host")
    func decoding() throws {
        let short = try BotFile.decode(
            "repository: {url: 'https://github.com/example/app.git'}\npull-requests: true\nforge: {token-file: /etc/kiln/token}\n",
            file: "Bots/app.yml")
        #expect(short.pullRequests == PullRequestPolicy(enabled: true, forks: false))
        #expect(short.forge == ForgeSettings(kind: .github, apiURL: "https://api.github.com", tokenFile: "/etc/kiln/token", warnings: .success))
        let long = try BotFile.decode(
            """
            repository: {url: 'git@gitlab.example.com:team/app.git'}
            pull-requests: {enabled: true, forks: true}
            forge:
              kind: gitlab
              api-url: https://gitlab.example.com/api/v4/
              token-file: /etc/kiln/token
              warnings: failure
              review: true
              review-limit: 10
            """, file: "Bots/app.yml")
        #expect(long.pullRequests == PullRequestPolicy(enabled: true, forks: true))
        #expect(long.forge?.apiURL == "https://gitlab.example.com/api/v4" && long.forge?.warnings == .failure && long.forgeKind == .gitlab)
        #expect(long.forge?.review == true && long.forge?.reviewLimit == 10 && short.forge?.review == false && short.forge?.reviewLimit == 25)
        let plain = try BotFile.decode("repository: {url: 'https://codeberg.org/example/app'}\n", file: "Bots/app.yml")
        #expect(!plain.pullRequests.enabled && plain.forge == nil && plain.forgeKind == .gitea)
        #expect(ForgeKind.gitlab.pullRef(4) == "refs/merge-requests/4/head" && ForgeKind.gitea.pullRef(4) == "refs/pull/4/head")
    }

    @Test("A forge's name for the repository: owner/name, GitLab's whole path, a local path's last two components")
    func project() throws {
        #expect(ForgeSettings.project(of: try RepositoryURL(parsing: "https://github.com/example/app.git", relativeTo: "/")) == "example/app")
        #expect(ForgeSettings.project(of: try RepositoryURL(parsing: "git@gitlab.com:group/sub/app.git", relativeTo: "/")) == "group/sub/app")
        #expect(ForgeSettings.project(of: try RepositoryURL(parsing: "/srv/git/team/app.git", relativeTo: "/")) == "team/app")
    }

    @Test("forks: approve holds a fork's pull request by an author not trusted (case aside); a member's own request and a team branch's never wait")
    func approval() throws {
        let bot = try BotFile.decode(
            "repository: {url: 'https://github.com/example/app.git'}\npull-requests: {forks: approve, trusted: [Alice]}\n", file: "Bots/app.yml")
        #expect(bot.pullRequests == PullRequestPolicy(enabled: true, forks: true, approval: true, trusted: ["Alice"]))
        func pull(_ author: String, fork: Bool = true) -> PullRequest {
            PullRequest(number: 1, title: "t", author: author, url: nil, head: "x:y", base: "main", ref: "refs/pull/1/head", fork: fork)
        }
        #expect(QueueRequest(bot, cause: .webhook, pullRequest: pull("mallory"), commit: "c").awaitsApproval)
        #expect(!QueueRequest(bot, cause: .webhook, pullRequest: pull("alice"), commit: "c").awaitsApproval)
        #expect(!QueueRequest(bot, cause: .webhook, pullRequest: pull("mallory", fork: false), commit: "c").awaitsApproval)
        #expect(!QueueRequest(bot, cause: .manual, pullRequest: pull("mallory"), commit: nil).awaitsApproval)
        let plain = try BotFile.decode(
            "repository: {url: 'https://github.com/example/app.git'}\npull-requests: {forks: true}\n", file: "Bots/app.yml")
        #expect(!QueueRequest(plain, cause: .webhook, pullRequest: pull("mallory"), commit: "c").awaitsApproval)
    }

    @Test("Each forge's member lookup: GitHub's and Gitea's collaborators (204, 404), GitLab's members at Developer access or more")
    func memberLookups() throws {
        let hub = try #require(ForgeKind.github.forge.memberRequest(api: "https://api.github.com", project: "example/app", login: "a b", token: "t"))
        #expect(
            hub.method == "GET" && hub.url == "https://api.github.com/repos/example/app/collaborators/a%20b"
                && hub.headers.contains("Authorization: Bearer t"))
        #expect(
            ForgeKind.github.forge.isMember("x", code: 204, body: []) == true && ForgeKind.gitea.forge.isMember("x", code: 404, body: []) == false)
        #expect(ForgeKind.github.forge.isMember("x", code: 500, body: []) == nil, "a failure says nothing: asked again later")
        let lab = try #require(
            ForgeKind.gitlab.forge.memberRequest(api: "https://gitlab.example.com/api/v4", project: "group/app", login: "maria", token: "t"))
        #expect(
            lab.url == "https://gitlab.example.com/api/v4/projects/group%2Fapp/members/all?query=maria" && lab.headers.contains("PRIVATE-TOKEN: t"))
        let members = Array(#"[{"username": "Maria", "access_level": 30}, {"username": "mario", "access_level": 20}]"#.utf8)
        #expect(ForgeKind.gitlab.forge.isMember("maria", code: 200, body: members) == true)
        #expect(ForgeKind.gitlab.forge.isMember("mario", code: 200, body: members) == false, "a Reporter may not push")
        #expect(ForgeKind.gitlab.forge.isMember("maria", code: 401, body: []) == nil)
        #expect(ForgeKind.generic.forge.memberRequest(api: "x", project: "p", login: "l", token: "t") == nil)
    }

    @Test("coverage: patch, min-lines and comments decode; a patch over 100 is refused at its position; below patch fails only from min-lines up")
    func coverageSettings() throws {
        let bot = try BotFile.decode(
            "repository: {url: 'https://github.com/example/app.git'}\ncoverage: {patch: 80, min-lines: 3, comments: true}\n", file: "Bots/app.yml")
        #expect(bot.coverage == CoverageSettings(patch: 80, minLines: 3, comments: true))
        #expect(try BotFile.decode("repository: {url: 'https://github.com/example/app.git'}\n", file: "Bots/app.yml").coverage == CoverageSettings())
        #expect(throws: ConfigError.self) {
            try BotFile.decode("repository: {url: 'https://github.com/example/app.git'}\ncoverage: {patch: 120}\n", file: "Bots/app.yml")
        }
        let settings = CoverageSettings(patch: 80, minLines: 3)
        #expect(settings.fails(PatchCoverage(covered: 2, coverable: 3, files: [])))
        #expect(!settings.fails(PatchCoverage(covered: 0, coverable: 2, files: [])), "under min-lines")
        #expect(!settings.fails(PatchCoverage(covered: 4, coverable: 5, files: [])), "80 % is not below 80")
        #expect(!CoverageSettings().fails(PatchCoverage(covered: 0, coverable: 50, files: [])), "without patch it informs")
    }

    @Test("coverage.comments: a review's line findings end with one per run of uncovered changed lines, kept open while uncovered")
    func uncoveredComments() throws {
        #expect(PatchCoverage.runs([9, 3, 4, 5, 4]) == [3...5, 9...9])
        let patch = PatchCoverage(
            covered: 1, coverable: 5,
            files: [PatchCoverage.File(path: "Sources/Lib/Lib.swift", covered: 1, coverable: 5, uncovered: [3, 4, 5, 9])])
        var request = ReviewRequest(
            forge: .github, apiURL: "https://api.github.com", tokenFile: "/token", project: "example/app", pullRequest: 2,
            head: String(repeating: "a", count: 40), changed: ChangedLines(), url: nil, limit: 25)
        request.patch = patch
        #expect(ReviewDraft.compose(request, bot: "app", number: 3, issues: []).onLines.isEmpty, "without coverage.comments, the summary only")
        request.commentsUncovered = true
        let draft = ReviewDraft.compose(request, bot: "app", number: 3, issues: [])
        #expect(draft.onLines.map(\.uncovered) == [3...5, 9...9] && draft.onLines.allSatisfy { $0.file == "Sources/Lib/Lib.swift" })
        #expect(draft.open == Set(draft.onLines.map(\.fingerprint)))
        // A review queued before the key existed still decodes.
        let old =
            try JSONSerialization.jsonObject(
                with: JSONEncoder().encode(
                    ReviewRequest(
                        forge: .github, apiURL: "https://api.github.com", tokenFile: "/token", project: "example/app", pullRequest: 2,
                        head: String(repeating: "a", count: 40), changed: ChangedLines(), url: nil, limit: 25))) as? [String: Any] ?? [:]
        let decoded = try JSONDecoder().decode(
            ReviewRequest.self, from: JSONSerialization.data(withJSONObject: old.filter { $0.key != "commentsUncovered" }))
        #expect(decoded.commentsUncovered == nil)
    }
}
