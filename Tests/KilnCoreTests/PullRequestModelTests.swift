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
}
