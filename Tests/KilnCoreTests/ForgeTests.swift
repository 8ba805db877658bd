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

import KilnCore
import Testing

@Suite("Forges: each described in one place")
struct ForgeTests {
    @Test("Every forge has its own kind; the three that take statuses are the ones a bot's forge.kind may name")
    func registry() {
        let kinds = Forges.all.map(\.kind)
        #expect(Set(kinds).count == kinds.count)
        #expect(kinds.map(\.rawValue) == ["github", "gitlab", "gitea", "generic"])
        #expect(Forges.statusKinds == [.github, .gitlab, .gitea])
        #expect(ForgeKind(known: "bitbucket") == nil && ForgeKind(known: "gitea") == .gitea)
    }

    @Test("A repository's host implies its forge; a self-hosted one implies none")
    func recognition() {
        #expect(Forges.implied(byHost: "github.com")?.kind == .github)
        #expect(Forges.implied(byHost: "gitlab.example.com")?.kind == .gitlab)
        #expect(Forges.implied(byHost: "codeberg.org")?.kind == .gitea)
        #expect(Forges.implied(byHost: "git.example.com") == nil)
        #expect(ForgeKind.gitlab.forge.publicAPI(forHost: "gitlab.com") == "https://gitlab.com/api/v4")
        #expect(ForgeKind.github.forge.publicAPI(forHost: "github.example.com") == nil)
    }

    @Test("Each forge names its events: a push, a pull request, or something else")
    func deliveries() {
        #expect(ForgeKind.github.forge.delivery("pull_request") == .pullRequest && ForgeKind.github.forge.delivery("ping") == .other)
        #expect(ForgeKind.gitea.forge.delivery("pull_request_sync") == .pullRequest)
        #expect(ForgeKind.gitlab.forge.delivery("Merge Request Hook") == .pullRequest && ForgeKind.gitlab.forge.delivery("Push Hook") == .push)
        #expect(ForgeKind.generic.forge.delivery("anything") == .push)
        #expect(ForgeKind.gitlab.forge.signature == .token)
    }
}
