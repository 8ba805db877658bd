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
import KilnStore
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Pull requests end to end: `kiln serve`, real repositories whose pull refs the tests make, and
/// a forge double on loopback that takes commit statuses.
@Suite("Pull requests and commit statuses")
struct PullRequestTests {
    /// GitHub's example delivery (`Tests/Fixtures/forge-payloads/github/`) of pull request #2 into
    /// `master`, with its repository URLs pointing at `repository` and its head at `head`.
    static func delivery(_ example: String, repository: String, head: String, fork: Bool = false) throws -> Data {
        var text = try String(contentsOfFile: Executables.packageRoot + "/Tests/Fixtures/forge-payloads/github/\(example).json", encoding: .utf8)
        for url in [
            "https://github.com/Codertocat/Hello-World.git", "git://github.com/Codertocat/Hello-World.git",
            "git@github.com:Codertocat/Hello-World.git",
        ] {
            text = text.replacingOccurrences(of: url, with: repository)
        }
        text = text.replacingOccurrences(of: "ec26c3e57ca3a959ca5aad62de7213c562f8c821", with: head)
        guard fork, let data = text.data(using: .utf8), var json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            var pull = json["pull_request"] as? [String: Any], var head = pull["head"] as? [String: Any],
            var repo = head["repo"] as? [String: Any]
        else { return Data(text.utf8) }
        // The same pull request, proposed from someone else's copy of the repository.
        repo["full_name"] = "mallory/Hello-World"
        head["repo"] = repo
        head["label"] = "mallory:changes"
        pull["head"] = head
        json["pull_request"] = pull
        return try JSONSerialization.data(withJSONObject: json)
    }

    static func post(_ body: Data, port: Int, event: String = "pull_request") async throws -> (status: Int, text: String) {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/hooks/github")))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(event, forHTTPHeaderField: "X-GitHub-Event")
        let (answer, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: answer, as: UTF8.self))
    }

    static func get(_ path: String, port: Int) async throws -> String {
        let (page, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        return String(decoding: page, as: UTF8.self)
    }

    /// Makes `sha` pull request #2's head the way GitHub keeps it in the base repository.
    static func publish(_ sha: String, in repository: GitFixture) throws {
        try repository.git("update-ref", "refs/pull/2/head", sha)
    }

    static func forge(_ forge: ForgeDouble, tokenFile: String, kind: String = "github") -> String {
        "forge: {kind: \(kind), api-url: '\(forge.apiURL)', token-file: '\(tokenFile)'}\n"
    }

    @Test("A pull request of a real package: pending, then failure saying what it adds and who; its warning is new, the base's unresolved")
    func realPackage() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        try repo.git("branch", "-m", "master")
        // The base branch has a warning of Alice's.
        try repo.commit("Keep a spare value", files: ["Sources/Lib/Lib.swift": FixturePackage.library(body: "    let spare = 1")])
        let forge = try await ForgeDouble.start()
        let home = try TemporaryDirectory()
        try home.write("token", forge.token + "\n")
        let bot =
            "repository: {url: '\(repo.url)', branch: master}\nschedule: {poll: 10s}\npull-requests: true\n"
            + Self.forge(forge, tokenFile: home.url("token"))
        let served = try await ServedHome(bots: ["app": bot], config: "executors: 1\npublic-url: https://ci.example.com/\n", seeded: ["app"])
        let port = try await served.server.waitForPort()
        try await served.eventually("the branch's first integration", timeout: .seconds(120)) {
            try await served.integrations("app").first?.step == .completed
        }
        let base = try repo.head()

        // Bob's pull request adds a second warning and makes both test suites fail.
        try repo.git("checkout", "-q", "-b", "changes")
        let head = try repo.commit(
            "Faster, supposedly",
            files: [
                "Sources/Lib/Lib.swift": FixturePackage.library(body: "    let spare = 1\n    let other = 2"),
                "Tests/LibTests/LibTests.swift": FixturePackage.xctests(failing: true),
                "Tests/LibSwiftTests/LibSwiftTests.swift": FixturePackage.swiftTests(failing: true),
            ], author: .bob)
        try repo.git("checkout", "-q", "master")
        try Self.publish(head, in: repo)
        let answer = try await Self.post(try Self.delivery("pull_request-opened", repository: repo.url, head: head), port: port)
        #expect(answer.status == 202, "\(answer.text)")
        try await served.eventually("the pull request's integration", timeout: .seconds(120)) {
            try await served.integrations("app").first { $0.pullRequest != nil }?.step == .completed
        }
        let store = try served.store()
        let integration = try #require(try await served.integrations("app").first { $0.pullRequest != nil })
        #expect(integration.result == .testFailures && integration.commit == head && integration.pullRequest?.number == 2)
        let detail = try #require(try await store.integration(bot: "app", number: integration.number))
        let warnings = detail.issues.filter { $0.type == .warning }
        #expect(warnings.first { $0.message.contains("'spare'") }?.status == .unresolved, "the base's own warning")
        let added = try #require(warnings.first { $0.message.contains("'other'") })
        #expect(added.status == .new && added.introducedBy.map(\.name) == ["Bob Builder"] && added.introducedBy.first?.commit == head)
        #expect(detail.commits.map(\.sha) == [head], "the pull request's own commits")

        // The final status, not the "failing so far" one that a streamed failure sends first (also
        // a failure): waiting for any failure raced the final one.
        let calls = try await forge.waitForCalls { calls in
            calls.contains { $0.sha == head && $0.state == "failure" && !$0.description.contains("so far") }
        }
        let mine = calls.filter { $0.sha == head }
        #expect(mine.first?.state == "pending" && mine.last?.state == "failure", "\(mine)")
        // Before the end: pending, and "failing so far" from the first failure read as it streamed.
        #expect(mine.dropLast().allSatisfy { $0.state == "pending" || $0.description.contains("failing so far") }, "\(mine)")
        let final = try #require(mine.last)
        #expect(final.description == "1 new warning, 2 tests failing (Bob Builder)")
        #expect(final.context == "kiln/app" && final.forge == "github" && final.project.hasSuffix("/origin"))
        #expect(final.targetURL == "https://ci.example.com/bots/app/integrations/\(integration.number)")
        // The branch's integration was told too; warnings are a success by default.
        #expect(calls.last { $0.sha == base }?.state == "success")

        let page = try await Self.get("/bots/app/integrations/\(integration.number)", port: port)
        #expect(page.contains("Update the README with new information.") && page.contains("Codertocat"))
        #expect(try await Self.get("/bots/app", port: port).contains("Open pull requests"))
    }

    @Test("A newer head cancels the integration of the older; closing cancels the rest; a fork's integration sees no secrets")
    func supersedeCloseAndFork() async throws {
        let repo = try GitFixture(branch: "master")
        try repo.commit("first", files: ["README.md": "not a package\n"])
        let forge = try await ForgeDouble.start()
        let home = try TemporaryDirectory()
        try home.write("token", forge.token)
        let marks = try TemporaryDirectory("kiln-marks")
        // Each integration writes what it sees of the secret, its HOME, its workspace, how many processes'
        // environments hold the secret and how much of the forge token it can read, then waits to be
        // stopped. A fork's runs confined, where the marks folder does not exist: it writes into its HOME.
        // The bot itself opts out of the sandbox (`sandbox: none`), so that its own runs show the difference.
        let bot =
            "repository: {url: '\(repo.url)', branch: master}\nschedule: {poll: 0}\npull-requests: {forks: true}\nsecrets: [DEPLOY_TOKEN]\nsandbox: none\n"
            + "triggers:\n  - name: mark\n    phase: before\n    run: f='\(marks.path)'/$KILN_INTEGRATION; [ -d '\(marks.path)' ] || f=$HOME/seen-$KILN_INTEGRATION; printf '%s|%s|%s|%s|%s' \"$DEPLOY_TOKEN\" \"$HOME\" \"$PWD\" $(grep -l s3cret-deploy /proc/[0-9]*/environ 2>/dev/null | wc -l) $(cat '\(home.url("token"))' 2>/dev/null | wc -c) > $f; sleep 60\n"
            + Self.forge(forge, tokenFile: home.url("token"))
        let served = try await ServedHome(bots: ["app": bot], environment: ["DEPLOY_TOKEN": "s3cret-deploy"])
        let port = try await served.server.waitForPort()
        func seen(_ number: Int) -> [String]? {
            let confined = served.home.url(".kiln/forks/homes/app/seen-\(number)")
            return
                ((try? String(contentsOfFile: marks.url("\(number)"), encoding: .utf8)) ?? (try? String(contentsOfFile: confined, encoding: .utf8)))
                .map { $0.components(separatedBy: "|") }
        }
        func mark(_ number: Int) -> String? { seen(number)?.first }

        let first = try repo.commit("one", files: ["a.txt": "1\n"], author: .bob)
        try Self.publish(first, in: repo)
        #expect(try await Self.post(try Self.delivery("pull_request-opened", repository: repo.url, head: first), port: port).status == 202)
        try await served.eventually("the first head running its trigger") { seen(1)?.count == 5 }
        #expect(mark(1) == "s3cret-deploy", "a pull request from the repository itself gets the secrets")

        let second = try repo.commit("two", files: ["a.txt": "2\n"], author: .bob)
        try Self.publish(second, in: repo)
        var synchronize =
            try JSONSerialization.jsonObject(with: try Self.delivery("pull_request-opened", repository: repo.url, head: second)) as? [String: Any]
        synchronize?["action"] = "synchronize"
        #expect(try await Self.post(try JSONSerialization.data(withJSONObject: synchronize ?? [:]), port: port).status == 202)
        try await served.eventually("the older head canceled and the newer running") {
            let integrations = try await served.integrations("app")
            return integrations.first { $0.number == 1 }?.result == .canceled && seen(2)?.count == 5
        }
        let older = try #require(try await served.integrations("app").first { $0.number == 1 })
        #expect(older.reason?.sentence.contains("superseded by a newer commit, \(second.prefix(10))") == true, "\(older.reason?.sentence ?? "")")

        let closed = try await Self.post(try Self.delivery("pull_request-closed", repository: repo.url, head: second), port: port)
        #expect(closed.status == 200, "\(closed.text)")
        try await served.eventually("the newer head canceled by the close") {
            try await served.integrations("app").first { $0.number == 2 }?.result == .canceled
        }
        #expect(try await served.integrations("app").first { $0.number == 2 }?.reason?.sentence.contains("pull request #2 was closed") == true)

        // The older head's statuses end as an error saying why; the forge heard each once.
        let calls = try await forge.waitForCalls { calls in
            calls.contains { $0.sha == first && $0.state == "error" } && calls.contains { $0.sha == second && $0.state == "error" }
        }
        #expect(calls.last { $0.sha == first }?.description.hasPrefix("Canceled: superseded") == true, "\(calls)")
        #expect(calls.last { $0.sha == second }?.description == "Canceled: pull request #2 was closed")

        // The same pull request from a fork: no secrets.
        let forked = try repo.commit("three", files: ["a.txt": "3\n"], author: .bob)
        try Self.publish(forked, in: repo)
        var reopened =
            try JSONSerialization.jsonObject(with: try Self.delivery("pull_request-opened", repository: repo.url, head: forked, fork: true))
            as? [String: Any]
        reopened?["action"] = "reopened"
        #expect(try await Self.post(try JSONSerialization.data(withJSONObject: reopened ?? [:]), port: port).status == 202)
        try await served.eventually("the fork's integration running its trigger") { seen(3)?.count == 5 }
        #expect(mark(3) == "", "a fork's integration sees no secrets")
        let team = try #require(seen(1)), fork = try #require(seen(3))
        #expect(team.count == 5 && fork.count == 5)
        #expect(fork[1] != team[1] && fork[2] != team[2], "a fork's HOME and workspace are its own: \(fork) against \(team)")
        #expect(team[3] != "0" && fork[3] == "0", "the team's build can see processes holding the secret (the server); a fork's sees none")
        #expect(team[4] != "0" && fork[4] == "0", "the forge token cannot be read from a fork's build")
        // The page, not the log route: that follows a running integration until it ends.
        let page = try await Self.get("/bots/app/integrations/3", port: port)
        #expect(page.contains("from a fork (no secrets)") && page.contains("mallory:changes"))
        _ = try await served.server.terminate()
    }

    @Test("kiln run BOT --pull N integrates the pull ref; one no webhook told of runs without secrets")
    func runPull() async throws {
        let repo = try GitFixture(branch: "master")
        try repo.commit("first", files: ["README.md": "not a package\n"])
        try repo.git("checkout", "-q", "-b", "topic")
        let head = try repo.commit("proposal", files: ["a.txt": "1\n"], author: .bob)
        try repo.git("checkout", "-q", "master")
        try Self.publish(head, in: repo)
        let home = try TemporaryDirectory()
        try home.write(
            "Bots/app.yml",
            "repository: {url: '\(repo.url)', branch: master}\nsecrets: [DEPLOY_TOKEN]\n"
                + "triggers: [{name: mark, phase: before, run: 'printf \"[%s]<%s %s>\" \"$DEPLOY_TOKEN\" \"$KILN_PULL_REQUEST\" \"$KILN_PULL_REQUEST_HEAD\"; exit 1'}]\n"
        )
        let run = try await runProcess(
            Executables.kiln, ["run", "app", "--pull", "2"], in: home.path,
            environment: ProcessInfo.processInfo.environment.merging(["DEPLOY_TOKEN": "s3cret"]) { _, new in new })
        #expect(run.status == 1, "a failing trigger fails the run")
        #expect(
            run.standardOutput.contains("pull request #2 into master") && run.standardOutput.contains("at \(head.prefix(10))"),
            "\(run.standardOutput)")
        let detail = try #require(try await SQLiteStore.open(dataDirectory: home.url(".kiln")).integration(bot: "app", number: 1))
        #expect(detail.integration.pullRequest?.number == 2 && detail.integration.commit == head && detail.integration.result == .triggerError)
        #expect(detail.commits.map(\.sha) == [head])
        let log = try String(contentsOfFile: home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        #expect(log.contains("[]") && !log.contains("s3cret"), "no secrets for a pull request nothing vouches for")
        #expect(log.contains("<2 pull/2>"), "scripts see which pull request they integrate")
        let missing = try await runProcess(Executables.kiln, ["run", "app", "--pull", "7"], in: home.path)
        #expect(missing.status == 1 && missing.standardOutput.contains("refs/pull/7/head not found"), "\(missing.standardOutput)")
    }

    @Test("The forge down, then up: every status delivered once, in order; a refused token is shown on the page and in kiln status")
    func outageAndRefusal() async throws {
        let repo = try GitFixture(branch: "master")
        try repo.commit("first", files: ["README.md": "not a package\n"])
        let forge = try await ForgeDouble.start()
        forge.stop()
        let home = try TemporaryDirectory()
        try home.write("token", forge.token)
        try home.write("wrong", "not-the-token")
        let quick =
            "repository: {url: '\(repo.url)', branch: master}\nschedule: {poll: 10s}\ntriggers:\n  - {name: fail, phase: before, run: exit 1}\n"
        let served = try await ServedHome(bots: [
            "app": quick + Self.forge(forge, tokenFile: home.url("token")),
            "lab": quick + Self.forge(forge, tokenFile: home.url("wrong"), kind: "gitlab"),
        ])
        let port = try await served.server.waitForPort()
        let head = try repo.head()
        try await served.eventually("both bots integrated") {
            let app = try await served.integrations("app").first?.step == .completed
            let lab = try await served.integrations("lab").first?.step == .completed
            return app && lab
        }
        // Down: the statuses wait in the outbox.
        try await served.eventually("a failed attempt recorded") {
            try await served.store().statuses(limit: 20).contains { $0.attempts > 0 && $0.status.bot == "app" }
        }
        #expect(try forge.calls().isEmpty)
        try await forge.restart()
        let calls = try await forge.waitForCalls(timeout: .seconds(60)) { calls in
            calls.contains { $0.forge == "github" && $0.state == "failure" }
        }
        let app = calls.filter { $0.forge == "github" && $0.sha == head }
        #expect(app.last?.state == "failure" && app.last?.description.hasPrefix("A trigger failed") == true, "\(app)")
        #expect(app.allSatisfy { $0.context == "kiln/app" })
        let stages = app.map(\.description)
        #expect(Set(stages).count == stages.count, "each status delivered once: \(stages)")
        #expect(app.dropLast().allSatisfy { $0.state == "pending" }, "pending before the result, never after: \(app.map(\.state))")

        // GitLab's statuses were refused: 401 with GitLab's message, on the page and in kiln status.
        #expect(!calls.contains { $0.forge == "gitlab" })
        try await served.eventually("the refusal recorded") { try await !served.store().statusProblems().isEmpty }
        let page = try await Self.get("/bots/lab", port: port)
        #expect(page.contains("Commit statuses refused") && page.contains("HTTP 401") && page.contains("401 Unauthorized"), "\(page)")
        #expect(try await !Self.get("/bots/app", port: port).contains("Commit statuses refused"))
        let status = try await runProcess(Executables.kiln, ["status"], in: served.home.path)
        #expect(
            status.standardOutput.contains("commit statuses refused") && status.standardOutput.contains("401 Unauthorized"),
            "\(status.standardOutput)")
        _ = try await served.server.terminate()
    }
}
