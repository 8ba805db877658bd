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
import KilnBuild
import KilnCore
import KilnTestSupport
import Testing

@Suite("A bot's workspace and the environment of its processes")
struct WorkspaceTests {
    /// Runs `env` as `step` of integration `number` and returns the variables it saw.
    func environment(seenBy step: IntegrationStep, number: Int, in data: TemporaryDirectory) async throws -> [String: String] {
        let bot = Bot(name: "app", repository: Repository(url: try RepositoryURL(parsing: "/srv/git/app.git", relativeTo: "/")))
        let layout = DataDirectory(data.path)
        try FileManager.default.createDirectory(atPath: layout.workspace(of: "app"), withIntermediateDirectories: true)
        let log = IntegrationLog(path: layout.log(of: "app", number: number), secrets: [])
        let workspace = Workspace(
            bot: bot, number: number, layout: layout, serverEnvironment: ["PATH": "/usr/bin:/bin"], log: log, deadline: .now + .seconds(60))
        let lines = Lines()
        let end = try await workspace.run(StepCommand("env"), step: step, commit: String(repeating: "\(number)", count: 40), onLine: lines.append)
        await log.close()
        #expect(end == .exited(0))
        return Dictionary(
            lines.all.compactMap { line in line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) } }
        ) {
            first, _ in first
        }
    }

    @Test("Triggers see the integration's own variables; swift build and swift test see the same environment every integration")
    func stableBuildEnvironment() async throws {
        let data = try TemporaryDirectory()
        let trigger = try await environment(seenBy: .beforeTriggers, number: 7, in: data)
        #expect(trigger["KILN_INTEGRATION"] == "7")
        #expect(trigger["KILN_COMMIT"] == String(repeating: "7", count: 40))
        #expect(trigger["KILN_LOG"] == DataDirectory(data.path).log(of: "app", number: 7))
        #expect(trigger["KILN_BOT"] == "app")

        // SwiftPM evaluates the manifest again when its environment changes: builds must not see one.
        let first = try await environment(seenBy: .building, number: 1, in: data)
        let second = try await environment(seenBy: .testing, number: 2, in: data)
        #expect(first == second)
        #expect(first["KILN_INTEGRATION"] == nil && first["KILN_COMMIT"] == nil && first["KILN_LOG"] == nil)
        #expect(first["KILN_BOT"] == "app" && first["HOME"] == DataDirectory(data.path).home(of: "app"))
        #expect(first["KILN_MARK"] == DataDirectory(data.path).processMark(bot: "app"))
    }

    @Test("A pull request from a fork gets a workspace and a HOME of its own, apart from the builds that get secrets")
    func forkIsolation() async throws {
        let data = try TemporaryDirectory()
        let layout = DataDirectory(data.path)
        var bot = Bot(name: "app", repository: Repository(url: try RepositoryURL(parsing: "/srv/git/app.git", relativeTo: "/")))
        bot.secrets = ["DEPLOY_TOKEN"]
        bot.clean = .always
        func workspace(_ pullRequest: PullRequest?) -> Workspace {
            Workspace(
                bot: bot, number: 1, layout: layout, serverEnvironment: ["PATH": "/usr/bin:/bin", "DEPLOY_TOKEN": "s3cret"],
                log: IntegrationLog(path: layout.log(of: "app", number: 1), secrets: []), deadline: .now + .seconds(60), pullRequest: pullRequest)
        }
        func pullRequest(fork: Bool) -> PullRequest {
            PullRequest(
                number: 2, title: "t", author: "mallory", url: nil, head: "mallory:changes", base: "main", ref: "refs/pull/2/head", fork: fork)
        }
        let branch = workspace(nil)
        let own = workspace(pullRequest(fork: false))
        let fork = workspace(pullRequest(fork: true))
        #expect(own.directory == branch.directory && own.home == branch.home, "a pull request from the repository itself is the team's code")
        #expect(fork.directory != branch.directory && fork.home != branch.home)
        #expect(fork.directory.hasPrefix(data.path + "/") && fork.home.hasPrefix(data.path + "/"))
        #expect(!fork.directory.hasPrefix(branch.directory) && !fork.home.hasPrefix(branch.home) && !branch.home.hasPrefix(fork.home))
        let environment = fork.environment(commit: nil)
        // Confined, it sees its workspace where every sandboxed workspace of the bot is seen.
        #expect(environment["HOME"] == fork.home && environment["KILN_WORKSPACE"] == fork.seenAs && environment["DEPLOY_TOKEN"] == nil)
        #expect(fork.seenAs == DataDirectory.confinedWorkspace(of: "app") && branch.seenAs == fork.seenAs)

        // Wiping one leaves the other.
        for each in [branch, fork] {
            try FileManager.default.createDirectory(atPath: each.directory + "/.build", withIntermediateDirectories: true)
        }
        try fork.prepare(now: Date())
        #expect(!FileManager.default.fileExists(atPath: fork.directory + "/.build"))
        #expect(FileManager.default.fileExists(atPath: branch.directory + "/.build"))
    }

    @Test("A fork's code runs confined: no other process, no data directory but its own, hidden files empty, and its test events still written")
    func forkConfinement() async throws {
        // Outside /tmp, which every sandbox replaces anyway, so that hiding is what is tested.
        let base = "/var/tmp/kiln-fork-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let layout = DataDirectory(base + "/data")
        let secret = base + "/forge-token"
        try FileManager.default.createDirectory(atPath: base + "/data/logs", withIntermediateDirectories: true)
        try "ghp_secret".write(toFile: secret, atomically: false, encoding: .utf8)
        try "the team's log".write(toFile: base + "/data/logs/team.log", atomically: false, encoding: .utf8)
        let bot = Bot(name: "app", repository: Repository(url: try RepositoryURL(parsing: "/srv/git/app.git", relativeTo: "/")))
        let pullRequest = PullRequest(
            number: 2, title: "t", author: "mallory", url: nil, head: "mallory:changes", base: "main", ref: "refs/pull/2/head", fork: true)
        let workspace = Workspace(
            bot: bot, number: 1, layout: layout, serverEnvironment: ["PATH": "/usr/bin:/bin"],
            log: IntegrationLog(path: base + "/1.log", secrets: []), deadline: .now + .seconds(60), pullRequest: pullRequest, hidden: [secret])
        try FileManager.default.createDirectory(atPath: workspace.directory, withIntermediateDirectories: true)
        let lines = Lines()
        let probe = [
            "test -e /proc/\(getpid())/environ && echo server-visible || echo server-hidden",
            "cat \(secret) 2>/dev/null | wc -c | sed 's/^/secret bytes /'",
            "test -e \(base)/data/logs/team.log && echo data-visible || echo data-hidden",
            "touch \(workspace.seenAs)/made \(workspace.home)/made && echo own-writable",
        ].joined(separator: "; ")
        let end = try await workspace.run(.shell(probe), step: .beforeTriggers, commit: nil, onLine: lines.append)
        #expect(end == .exited(0), "\(lines.all)")
        #expect(lines.all == ["server-hidden", "secret bytes 0", "data-hidden", "own-writable"])
        #expect(
            FileManager.default.fileExists(atPath: workspace.directory + "/made") && FileManager.default.fileExists(atPath: workspace.home + "/made"))
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "ghp_secret", "hidden, not touched")

        // Swift Testing's event stream goes where a confined `swift test` may write it.
        let events = layout.testEvents(of: "app", fork: true)
        let written = try await workspace.run(.shell("echo '{}' > \(events)"), step: .testing, commit: nil)
        #expect(written == .exited(0) && FileManager.default.fileExists(atPath: events))
    }

    @Test("Without bubblewrap, a fork's step cannot start, and the error says to install it")
    func forkNeedsBubblewrap() async throws {
        let data = try TemporaryDirectory()
        let layout = DataDirectory(data.path)
        let bot = Bot(name: "app", repository: Repository(url: try RepositoryURL(parsing: "/srv/git/app.git", relativeTo: "/")))
        let pullRequest = PullRequest(
            number: 2, title: "t", author: "mallory", url: nil, head: "mallory:changes", base: "main", ref: "refs/pull/2/head", fork: true)
        // No bwrap on this PATH.
        let workspace = Workspace(
            bot: bot, number: 1, layout: layout, serverEnvironment: ["PATH": data.url("no-tools")],
            log: IntegrationLog(path: layout.log(of: "app", number: 1), secrets: []), deadline: .now + .seconds(60), pullRequest: pullRequest)
        try FileManager.default.createDirectory(atPath: workspace.directory, withIntermediateDirectories: true)
        do {
            _ = try await workspace.run(.shell("true"), step: .beforeTriggers, commit: nil)
            Issue.record("a fork's step ran without bubblewrap")
        } catch {
            #expect("\(error)".contains("a pull request from a fork always runs under bubblewrap: install it"), "\(error)")
        }
    }
}
