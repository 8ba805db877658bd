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
import KilnPresentation
import KilnServer
import KilnTestSupport
import Testing

@Suite("Posting commit statuses to each forge's API")
struct ForgeClientTests {
    static let sha = String(repeating: "c", count: 40)

    static func status(_ kind: ForgeKind, _ state: CommitState, api: String, project: String = "team/app") -> CommitStatus {
        CommitStatus(
            bot: "app", integrationID: 1, kind: kind, apiURL: api + "/", project: project, tokenFile: "/unused", sha: sha, context: "kiln/app",
            state: state, description: "Integration 1 running", targetURL: "https://ci.example.com/bots/app/integrations/1")
    }

    @Test(
        "GitHub, Gitea and GitLab each get their endpoint, auth header and states; a wrong token is refused with the forge's words; a forge that is down is a failure to retry"
    )
    func forges() async throws {
        let forge = try await ForgeDouble.start()
        let client = ForgeClient(connectTimeout: .seconds(2), totalTimeout: .seconds(5))
        for (kind, state) in [(ForgeKind.github, CommitState.running), (.gitea, .success), (.gitlab, .running), (.gitlab, .error)] {
            let answer = await client.post(Self.status(kind, state, api: forge.apiURL), token: forge.token)
            #expect(answer == .delivered(code: 201), "\(kind) \(state)")
        }
        let calls = try forge.calls()
        #expect(calls.map(\.forge) == ["github", "gitea", "gitlab", "gitlab"])
        #expect(calls.map(\.state) == ["pending", "success", "running", "failed"], "running is pending on GitHub; GitLab says running and failed")
        #expect(calls.allSatisfy { $0.project == "team/app" && $0.sha == Self.sha && $0.context == "kiln/app" })
        #expect(calls.first?.targetURL == "https://ci.example.com/bots/app/integrations/1")

        let refused = await client.post(Self.status(.github, .success, api: forge.apiURL), token: "wrong")
        #expect(refused == .refused(code: 401, message: "Bad credentials"))
        let lab = await client.post(Self.status(.gitlab, .success, api: forge.apiURL), token: "wrong")
        #expect(lab == .refused(code: 401, message: "401 Unauthorized"))

        forge.stop()
        let down = await client.post(Self.status(.gitea, .success, api: forge.apiURL), token: forge.token)
        guard case .failed(nil, let message) = down else {
            Issue.record("a forge that is down is a failure to try again, not \(down)")
            return
        }
        #expect(!message.isEmpty)
    }

    @Test("The coverage status of a change reaches each forge on its own context, failing below coverage.patch, in each forge's states")
    func coverageStatus() async throws {
        let forge = try await ForgeDouble.start()
        let client = ForgeClient(connectTimeout: .seconds(2), totalTimeout: .seconds(5))
        var bot = Bot(name: "app", repository: Repository(url: try RepositoryURL(parsing: "https://example.com/team/app.git", relativeTo: "/")))
        bot.coverage = CoverageSettings(patch: 80)
        let integration = Integration(id: 1, bot: "app", number: 7, cause: .webhook, commit: Self.sha, branch: "main", queuedAt: Date())
        let patch = PatchCoverage(
            covered: 3, coverable: 6, files: [PatchCoverage.File(path: "Sources/Lib/Lib.swift", covered: 3, coverable: 6, uncovered: [4, 5, 6])])
        for kind in [ForgeKind.github, .gitlab, .gitea] {
            let settings = ForgeSettings(kind: kind, apiURL: forge.apiURL, tokenFile: "/unused")
            let status = CommitStatus.coverage(
                of: integration, patch: patch, bot: bot, forge: settings, sha: Self.sha, publicURL: "https://ci.example.com")
            #expect(await client.post(status, token: forge.token) == .delivered(code: 201), "\(kind)")
        }
        let calls = try forge.calls()
        #expect(calls.map(\.forge) == ["github", "gitlab", "gitea"] && calls.map(\.state) == ["failure", "failed", "failure"])
        #expect(calls.allSatisfy { $0.context == "kiln/app/coverage" && $0.description == "patch 50.0 % (3 of 6 changed lines), below 80 %" })
        #expect(calls.allSatisfy { $0.project == "team/app" && $0.targetURL == "https://ci.example.com/bots/app/integrations/7" })
    }
}
