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

@Suite("Bisection: a failure of several commits is pinned on the one that brought it")
struct BisectionServeTests {
    @Test("Eight commits by four authors, the fifth (Carol's) breaking tests in files nobody touched: bisected to Carol, one mail, to her")
    func eightCommits() async throws {
        let smtp = try await SMTPServer.start()
        let package = try FixturePackage()
        let repo = package.repository
        let served = try await ServedHome(
            bots: [
                "app": """
                repository: {url: '\(repo.url)'}
                schedule: {poll: 0}
                triggers: [{email: new-issues}]

                """
            ],
            config: "executors: 1\npublic-url: http://ci.example.com\nsmtp: {url: '\(smtp.url)', from: 'Kiln <kiln@example.com>'}\n",
            seeded: ["app"])
        let (broken, culprit) = try await Self.bisectEightCommits(served, repo: repo)
        let store = try served.store()
        #expect(broken.result == .testFailures)
        let bisection = try #require(try await store.bisection(of: broken.id))
        #expect(bisection.state == .found && bisection.culprit == culprit, "\(bisection)")
        #expect(bisection.integrations.count <= 4, "\(bisection.integrations)")
        let issues = try #require(try await store.integration(bot: "app", number: 2)).issues
        #expect(issues.count == 2 && issues.allSatisfy { $0.type == .testFailure })
        #expect(
            issues.allSatisfy { $0.introducedBy == [Committer(name: "Carol Coder", email: "carol@example.com", commit: culprit, bisected: true)] })

        // Exactly one new-issue mail, to Carol alone, saying how she was found.
        let mail = try #require(try await smtp.waitForMessages(1, timeout: .seconds(60)).first)
        #expect(mail.to == ["carol@example.com"])
        #expect(mail.parts["text/plain"]?.contains("the failure came with \(culprit.prefix(10)) (Carol Coder)") == true)
        try await Task.sleep(for: .seconds(3))
        #expect(try smtp.messages().count == 1)

        // The bisect integrations are not the branch's history.
        #expect(try await served.integrations("app").map(\.number) == [2, 1])
        let port = try await served.server.waitForPort()
        let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/2")))
        let page = String(decoding: data, as: UTF8.self)
        #expect(page.contains("bisected to \(culprit.prefix(10)) (Carol Coder) in \(bisection.integrations.count) integration"), "\(page)")
        _ = try await served.server.terminate()
    }

    @Test("A measure {} slowed by one of four authors' commits: the regression is bisected to it, judged by the baseline the push had")
    func performanceRegression() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit("Measure the speed", files: PerformanceRunTests.measuring(50_000))
        // A wide tolerance: the test proves the search, not the machine's steadiness under load.
        let served = try await ServedHome(
            bots: ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\nperformance: {tolerance: 300%}\n"], config: "executors: 1\n",
            seeded: ["app"])
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        try await served.eventually("the first integration: the baseline", timeout: .seconds(240)) {
            try await served.integrations("app").first?.result == .succeeded
        }

        // Carol's commit makes add(_:_:) a hundred times slower; the test that measures it is in
        // a file nobody touches, so blame names all four.
        let carol = GitFixture.Author("Carol Coder", "carol@example.com")
        let dave = GitFixture.Author("Dave Dev", "dave@example.com")
        let slower = "    var spin = 0\n    for step in 0..<100 { spin &+= step }\n    if spin == -1 { return 0 }"
        let culprit = try Self.commits(by: [.alice, .bob, carol, dave], in: repo, changing: 2, to: slower)[2]
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        let store = try served.store()
        try await served.eventually("the pushed integration", timeout: .seconds(240)) {
            try await store.integration(bot: "app", number: 2)?.integration.step == .completed
        }
        let pushed = try #require(try await store.integration(bot: "app", number: 2))
        #expect(pushed.integration.result == .testFailures, "\(pushed.issues)")
        try await served.eventually("the bisection", timeout: .seconds(300)) {
            try await store.bisection(of: pushed.integration.id)?.state != .running
        }
        let bisection = try #require(try await store.bisection(of: pushed.integration.id))
        // What each bisect integration measured, should it judge a commit wrongly: their measure
        // lines and issues (seen once under a profiler's extra load: Carol's commit judged good).
        var measured: [String] = []
        for number in bisection.integrations {
            let log = (try? String(contentsOfFile: served.home.url(".kiln/logs/app/\(number).log"), encoding: .utf8)) ?? "no log"
            let issues = try await store.integration(bot: "app", number: number)?.issues.map(\.message) ?? []
            measured.append(
                "#\(number): \(log.split(separator: "\n").filter { $0.contains("measured") || $0.hasPrefix("===") || $0.hasPrefix("checked out") || $0.contains("Compiling") || $0.hasPrefix("Build complete") || $0.hasPrefix("***") }) \(issues)"
            )
        }
        #expect(
            bisection.state == .found && bisection.culprit == culprit,
            "\(bisection)\n#2: \(pushed.issues.map(\.message))\n\(measured.joined(separator: "\n"))")
        let issues = try #require(try await store.integration(bot: "app", number: 2)).issues
        let regression = try #require(issues.first { $0.type == .performanceRegression }, "\(issues)")
        #expect(regression.introducedBy == [Committer(name: "Carol Coder", email: "carol@example.com", commit: culprit, bisected: true)])
        #expect(try await served.integrations("app").map(\.number) == [2, 1], "the bisect integrations are no baseline and no history")
        _ = try await served.server.terminate()
    }

    @Test("Three executors: a round integrates three commits at once, in workspaces copied warm from the bot's, and finds Carol")
    func threeExecutors() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        let served = try await ServedHome(
            bots: ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\n"], config: "executors: 3\n", seeded: ["app"])
        let (pushed, culprit) = try await Self.bisectEightCommits(served, repo: repo)
        let store = try served.store()
        let bisection = try #require(try await store.bisection(of: pushed.id))
        #expect(bisection.state == .found && bisection.culprit == culprit, "\(bisection)")
        let log = try String(contentsOfFile: served.home.url(".kiln/logs/app/2.log"), encoding: .utf8)
        #expect(log.contains("copying this workspace to bisect workspace 2"), "\(log)")
        var round: [Integration] = []
        for number in bisection.integrations.prefix(3) {
            round.append(try #require(try await store.integration(bot: "app", number: number)).integration)
        }
        #expect(Set(round.map(\.queuedAt)).count == 1 && round.compactMap(\.workspaceSlot).sorted() == [0, 1, 2], "\(round)")
        for slot in [1, 2] {
            #expect(FileManager.default.fileExists(atPath: served.home.url(".kiln/bisect/app/\(slot)/.build")), "workspace \(slot) kept warm")
        }
        _ = try await served.server.terminate()
    }

    @Test("Three hosts on PostgreSQL: a round's bisect integrations spread over the idle hosts, and the failure is bisected to Carol")
    func threeHosts() async throws {
        let url = try await PostgresServer.shared.database()
        let package = try FixturePackage()
        let repo = package.repository
        var hosts: [ServedHome] = []
        for index in 1...3 {
            hosts.append(
                try await ServedHome(
                    bots: ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\n"],
                    config: "executors: 1\ndatabase: {url: '\(url)'}\nhost: h\(index)\n"))
        }
        let store = try await PostgresStore.open(DatabaseSettings(url: url))
        let context = { hosts.map(\.server.standardOutput).joined(separator: "\n") }
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: hosts[0].home.path)
        try await eventually("the first integration", timeout: .seconds(240), context: context()) {
            try await store.integrations(bot: "app", limit: 1, before: nil).first?.result == .succeeded
        }

        let culprit = try Self.pushEightCommits(to: repo)
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: hosts[1].home.path)
        try await eventually("the pushed integration", timeout: .seconds(240), context: context()) {
            try await store.integration(bot: "app", number: 2)?.integration.step == .completed
        }
        let broken = try #require(try await store.integration(bot: "app", number: 2))
        #expect(broken.integration.result == .testFailures)
        try await eventually("the bisection", timeout: .seconds(300), context: context()) {
            try await store.bisection(of: broken.integration.id)?.state != .running
        }
        let bisection = try #require(try await store.bisection(of: broken.integration.id))
        #expect(bisection.state == .found && bisection.culprit == culprit, "\(bisection)")
        // Three executors were idle: the first round integrated three commits at once, on
        // whichever hosts were free (each host has one executor, so at least two of them).
        var firstRound: [Integration] = []
        for number in bisection.integrations.prefix(3) {
            firstRound.append(try #require(try await store.integration(bot: "app", number: number)).integration)
        }
        #expect(firstRound.count == 3 && Set(firstRound.map(\.queuedAt)).count == 1, "one round of three: \(firstRound)")
        #expect(Set(firstRound.compactMap(\.host)).count >= 2, "spread over the hosts: \(firstRound.map(\.host))")
        let issues = try #require(try await store.integration(bot: "app", number: 2)).issues
        #expect(
            !issues.isEmpty && issues.allSatisfy { $0.introducedBy.map(\.email) == ["carol@example.com"] && $0.introducedBy.first?.bisected == true })
        for host in hosts { _ = try await host.server.terminate() }
    }

    @Test("A pull request's new failure is bisected within its own commits; bisect integrations post no commit status")
    func pullRequest() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        try repo.git("branch", "-m", "master")
        let forge = try await ForgeDouble.start()
        let home = try TemporaryDirectory()
        try home.write("token", forge.token + "\n")
        let bot =
            "repository: {url: '\(repo.url)', branch: master}\nschedule: {poll: 0}\npull-requests: true\n"
            + PullRequestTests.forge(forge, tokenFile: home.url("token"))
        let served = try await ServedHome(bots: ["app": bot], seeded: ["app"])
        let port = try await served.server.waitForPort()
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        try await served.eventually("the branch's first integration", timeout: .seconds(240)) {
            try await served.integrations("app").first?.result == .succeeded
        }
        let base = try repo.head()

        // Four commits by four people; Carol's third breaks add(1, 2), checked in a file none touches.
        try repo.git("checkout", "-q", "-b", "changes")
        let carol = GitFixture.Author("Carol Coder", "carol@example.com")
        let dave = GitFixture.Author("Dave Dev", "dave@example.com")
        let shas = try Self.commits(by: [.alice, .bob, carol, dave], in: repo, changing: 2, to: "    if a == 1 { return 0 }")
        let head = try #require(shas.last)
        try repo.git("checkout", "-q", "master")
        try PullRequestTests.publish(head, in: repo)
        let answer = try await PullRequestTests.post(
            try PullRequestTests.delivery("pull_request-opened", repository: repo.url, head: head), port: port)
        #expect(answer.status == 202, "\(answer.text)")

        let store = try served.store()
        try await served.eventually("the pull request's integration", timeout: .seconds(240)) {
            try await served.integrations("app").first { $0.pullRequest != nil }?.step == .completed
        }
        let integration = try #require(try await served.integrations("app").first { $0.pullRequest != nil })
        #expect(integration.result == .testFailures)
        try await served.eventually("the bisection", timeout: .seconds(300)) {
            try await store.bisection(of: integration.id)?.state != .running
        }
        let bisection = try #require(try await store.bisection(of: integration.id))
        #expect(bisection.state == .found && bisection.culprit == shas[2], "\(bisection)")
        #expect(bisection.commits.map(\.sha) == shas, "the range is the pull request's own commits")
        let issues = try #require(try await store.integration(bot: "app", number: integration.number)).issues
        #expect(
            !issues.isEmpty && issues.allSatisfy { $0.introducedBy.map(\.email) == ["carol@example.com"] && $0.introducedBy.first?.bisected == true })

        // Statuses went to the branch's commit and the pull request's head only.
        let calls = try await forge.waitForCalls { calls in calls.contains { $0.sha == head && $0.state == "failure" } }
        #expect(Set(calls.map(\.sha)).isSubset(of: [base, head]), "\(calls.map(\.sha))")
        _ = try await served.server.terminate()
    }

    /// Eight commits by four authors; Carol's, the fifth, breaks add(1, 2), which two tests check
    /// in a file nobody touches. Returns Carol's commit.
    static func pushEightCommits(to repo: GitFixture) throws -> String {
        let carol = GitFixture.Author("Carol Coder", "carol@example.com")
        let dave = GitFixture.Author("Dave Dev", "dave@example.com")
        let authors = [GitFixture.Author.alice, .bob, dave, .alice, carol, .bob, dave, .alice]
        return try commits(by: authors, in: repo, changing: 4, to: "    if a == 1 { return 0 }")[4]
    }

    /// `served` integrates its bot `app` once, then the eight commits of `pushEightCommits`, and
    /// bisects them. Returns the integration of the eight, and Carol's commit.
    static func bisectEightCommits(_ served: ServedHome, repo: GitFixture) async throws -> (pushed: Integration, culprit: String) {
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        try await served.eventually("the first integration", timeout: .seconds(240)) {
            try await served.integrations("app").first?.result == .succeeded
        }
        let culprit = try pushEightCommits(to: repo)
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        let store = try served.store()
        try await served.eventually("the pushed integration", timeout: .seconds(240)) {
            try await store.integration(bot: "app", number: 2)?.integration.step == .completed
        }
        let pushed = try #require(try await store.integration(bot: "app", number: 2)).integration
        try await served.eventually("the bisection", timeout: .seconds(300)) {
            try await store.bisection(of: pushed.id)?.state != .running
        }
        return (pushed, culprit)
    }

    /// One commit per author, oldest first, each adding a note; the one at `culprit` also gives
    /// `add(_:_:)` the body `body`. Returns their SHAs.
    static func commits(by authors: [GitFixture.Author], in repo: GitFixture, changing culprit: Int, to body: String) throws -> [String] {
        try authors.enumerated().map { index, author in
            var files = ["Notes/\(index + 1).md": "note \(index + 1)\n"]
            if index == culprit { files["Sources/Lib/Lib.swift"] = FixturePackage.library(body: body) }
            return try repo.commit("Commit \(index + 1)", files: files, author: author)
        }
    }
}
