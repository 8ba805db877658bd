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

@Suite("kiln trigger and kiln status, run as real processes")
struct StatusAndTriggerTests {
    func home() throws -> TemporaryDirectory {
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: 'https://ci:s3cret@example.com/app.git', branch: develop}\n")
        try home.write("Bots/lib.yml", "repository: {url: /srv/git/lib.git}\n")
        try home.write("Bots/broken.yml", "repository: {url: /srv/git/x.git}\ntimeout: soon\n")
        return home
    }

    @Test("kiln status marks a running integration whose process was stopped, before any server has ended it")
    func goneProcess() async throws {
        let home = try home()
        let database = home.url(".kiln/kiln.sqlite")
        _ = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        let holder = try ServerProcess(executable: Executables.storeStress, arguments: ["hold", database, "app"], in: home.path)
        try await holder.waitForOutput("claimed 1")
        let alive = try await runProcess(Executables.kiln, ["status"], in: home.path)
        #expect(alive.standardOutput.contains("running #1 (building)\n"), "\(alive.standardOutput)")
        holder.sigkill()
        let status = try await runProcess(Executables.kiln, ["status"], in: home.path)
        #expect(
            status.standardOutput.contains("running #1 (building) — its process is gone; a server ends it when it starts"), "\(status.standardOutput)"
        )
    }

    @Test("kiln trigger queues once, and a second trigger joins the queued integration")
    func trigger() async throws {
        let home = try home()
        let first = try await runProcess(Executables.kiln, ["trigger", "app"], in: home.path)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput == "queued app #1\n")
        let second = try await runProcess(Executables.kiln, ["trigger", "app"], in: home.path)
        #expect(second.standardOutput == "app #1 was already queued; the trigger joins it\n")
        let other = try await runProcess(Executables.kiln, ["trigger", "lib"], in: home.path)
        #expect(other.standardOutput == "queued lib #1\n")
        // Alone, the bot needs no parsing (`Kiln.main`); with options, the same store is reached.
        let located = try await runProcess(Executables.kiln, ["trigger", "--data", ".kiln", "--bots", "Bots", "lib"], in: home.path)
        #expect(located.standardOutput == "lib #1 was already queued; the trigger joins it\n", "\(located.standardError)")
        // The trigger created the file on one connection: it is in WAL mode all the same, which
        // lets a server read while a trigger writes.
        #expect(try await SQLiteStore.open(dataDirectory: home.url(".kiln")).journalMode() == "wal")
    }

    @Test("kiln trigger starts without libgit2 and libcurl, which a server opens when it starts")
    func triggerLoadsNoGitOrCurl() async throws {
        let home = try home()
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "libs"
        let trigger = try await runProcess(Executables.kiln, ["trigger", "app"], in: home.path, environment: environment)
        #expect(trigger.status == 0, "\(trigger.standardError)")
        // The loader's trace names every library it opens: SQLite, and neither of the others
        // (with their ~40 dependencies, they took ~10 ms of every command's start).
        #expect(trigger.standardError.contains("libsqlite3.so"), "LD_DEBUG traced nothing: \(trigger.standardError.prefix(500))")
        #expect(!trigger.standardError.contains("libgit2.so"))
        #expect(!trigger.standardError.contains("libcurl.so"))
        let empty = try TemporaryDirectory()
        try empty.write("Bots/.keep", "")
        let serve = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: empty.path, environment: ["LD_DEBUG": "libs"])
        _ = try await serve.waitForPort()
        let served = try await serve.terminate()
        #expect(served.standardError.contains("libgit2.so") && served.standardError.contains("libcurl.so"))
    }

    @Test("kiln --version prints the version and nothing else, and kiln run BOT and kiln status start the same way as with options")
    func shortPaths() async throws {
        let version = try await runProcess(Executables.kiln, ["--version"])
        #expect(version.status == 0 && version.standardOutput == KilnVersion.current + "\n" && version.standardError.isEmpty, "\(version)")
        // The same commands through ArgumentParser, options given: the same answers.
        let home = try home()
        let quick = try await runProcess(Executables.kiln, ["status"], in: home.path)
        let parsed = try await runProcess(Executables.kiln, ["status", "--data", ".kiln"], in: home.path)
        #expect(quick.status == 0 && quick.standardOutput == parsed.standardOutput, "\(quick)\n\(parsed)")
        let missing = try await runProcess(Executables.kiln, ["run", "nobot"], in: home.path)
        let missingParsed = try await runProcess(Executables.kiln, ["run", "nobot", "--bots", "Bots"], in: home.path)
        #expect(missing.status == 1 && missing.standardError == missingParsed.standardError && missing.standardError.contains("nobot"), "\(missing)")
    }

    @Test(
        "kiln run of an unknown bot, which ends while its libraries still open beside it, ends with status 1 every time, never a crash (100 runs)"
    )
    func runEndsBeforeItsLibraries() async throws {
        let home = try home()
        var ends: [Int32: Int] = [:]
        for _ in 0..<100 { ends[try await runProcess(Executables.kiln, ["run", "nobot"], in: home.path).status, default: 0] += 1 }
        #expect(ends == [1: 100], "statuses and how often: \(ends)")
    }

    @Test("kiln trigger refuses unknown and broken bots with one clear line")
    func triggerErrors() async throws {
        let home = try home()
        let unknown = try await runProcess(Executables.kiln, ["trigger", "nope"], in: home.path)
        #expect(unknown.status == 1)
        #expect(unknown.standardError == "error: no bot named 'nope' in Bots (bots: app, lib)\n")
        let broken = try await runProcess(Executables.kiln, ["trigger", "broken"], in: home.path)
        #expect(broken.status == 1)
        #expect(broken.standardError == "error: bot 'broken' cannot integrate: Bots/broken.yml has problems (run kiln validate)\n")
        // kiln trigger is parsed on a short path of its own; its mistakes read as every command's.
        let extra = try await runProcess(Executables.kiln, ["trigger", "app", "lib"], in: home.path)
        #expect(extra.status == 64)
        #expect(extra.standardError.contains("Error: Unexpected argument 'lib'\nUsage: kiln trigger"), "\(extra.standardError)")
        #expect(extra.standardError.contains("See 'kiln trigger --help' for more information."), "\(extra.standardError)")
        let help = try await runProcess(Executables.kiln, ["trigger", "--help"], in: home.path)
        #expect(help.standardOutput.contains("USAGE: kiln trigger [--config <file>] [--bots <dir>] [--data <dir>] <bot>"))
    }

    @Test("kiln status --json prints the bots as the API does: recorded by serve, queued by trigger")
    func statusJSON() async throws {
        let home = try home()
        // serve records the bots (and their problems) in the store.
        let server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        _ = try await server.waitForPort()
        _ = try await server.terminate()
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: home.path)

        let result = try await runProcess(Executables.kiln, ["status", "--json"], in: home.path)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!result.standardOutput.contains("s3cret"))
        let bots = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        #expect(bots.map { $0["name"] as? String } == ["app", "broken", "lib"])
        let app = try #require(bots.first)
        #expect(Set(app.keys) == ["name", "repository", "branch", "status", "problems", "last", "running", "queued"])
        #expect(app["repository"] as? String == "https://example.com/app.git")
        #expect(app["branch"] as? String == "develop")
        #expect(app["status"] as? String == "queued")
        #expect(app["last"] is NSNull && app["running"] is NSNull)
        let queued = try #require((app["queued"] as? [[String: Any]])?.first)
        #expect(
            Set(queued.keys) == [
                "bot", "number", "cause", "commit", "step", "result", "reason", "queuedAt", "startedAt", "endedAt", "duration", "summary",
                "host", "pullRequest", "workspace", "rerunOf", "progress", "shards", "approvedBy", "coverage",
            ])
        #expect(queued["approvedBy"] is NSNull, "no fork's pull request waited for it")
        #expect(queued["coverage"] is NSNull, "nothing measured")
        #expect(queued["reason"] is NSNull, "nothing to say of a queued integration")
        #expect(queued["rerunOf"] is NSNull, "a trigger is no re-run")
        #expect(queued["progress"] is NSNull, "a queued integration has run no test yet")
        #expect((queued["shards"] as? [Any])?.isEmpty == true, "a queued integration ran in no shard")
        #expect(queued["bot"] as? String == "app" && queued["number"] as? Int == 1 && queued["cause"] as? String == "manual")
        #expect(queued["workspace"] is NSNull, "a queued integration has no workspace yet")
        #expect(queued["step"] as? String == "pending" && queued["result"] is NSNull && queued["summary"] is NSNull)
        #expect((queued["queuedAt"] as? String)?.hasSuffix("Z") == true)
        let broken = bots[1]
        #expect(broken["status"] as? String == "broken")
        #expect(broken["problems"] as? [String] == ["Bots/broken.yml:2:10: error: 'timeout' must be a duration such as 90s, 2m or 1h30m, not 'soon'"])
        #expect(bots[2]["status"] as? String == "idle")
    }

    @Test("kiln status prints a line per bot, with broken files' problems")
    func statusText() async throws {
        let home = try home()
        let server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        _ = try await server.waitForPort()
        _ = try await server.terminate()
        _ = try await runProcess(Executables.kiln, ["trigger", "lib"], in: home.path)
        let result = try await runProcess(Executables.kiln, ["status"], in: home.path)
        #expect(
            result.standardOutput == """
                app     idle      never integrated
                broken  broken    never integrated
                  Bots/broken.yml:2:10: error: 'timeout' must be a duration such as 90s, 2m or 1h30m, not 'soon'
                lib     queued    never integrated; queued #1

                """)
    }

    @Test("kiln status shows the mail outbox: queued with attempts and last error, failed, sent")
    func statusOutbox() async throws {
        let home = try home()
        let store = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        let now = Date()
        for (index, subject) in ["[app] #1 succeeded", "[app] #2 broken: build-errors", "[app] #3 fixed: succeeded"].enumerated() {
            _ = try await store.queueMail(
                OutgoingMail(dedupeKey: "\(index)", recipients: ["team@example.com"], subject: subject, message: Array("x".utf8)), now: now)
        }
        let queued = try await store.dueMails(now: now, limit: 10)
        try await store.deliveryFailed(
            queued[0].id, error: "cannot reach the SMTP server smtp://127.0.0.1:25", responseCode: nil, retryAt: now.addingTimeInterval(120), now: now
        )
        try await store.deliveryFailed(queued[1].id, error: "the SMTP server answered 550: no such user", responseCode: 550, retryAt: nil, now: now)
        try await store.deliverySent(queued[2].id, responseCode: 250, now: now)
        let result = try await runProcess(Executables.kiln, ["status"], in: home.path)
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains("mail: 1 queued, 1 failed, 1 sent"))
        #expect(lines.contains("  failed \"[app] #2 broken: build-errors\" to team@example.com: the SMTP server answered 550: no such user"))
        #expect(
            lines.contains {
                $0.hasPrefix("  queued \"[app] #1 succeeded\" to team@example.com, 1 attempt, next in ")
                    && $0.hasSuffix(": cannot reach the SMTP server smtp://127.0.0.1:25")
            })
    }

    @Test("kiln run shows the running step with its elapsed time on a terminal, and a line per step otherwise")
    func runProgress() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("Not a package", files: ["README.md": "hello\n"])
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\n")
        // `script` gives kiln a terminal.
        let terminal = try await runProcess("/usr/bin/script", ["-qc", "\(Executables.kiln) run app", "/dev/null"], in: home.path)
        #expect(terminal.standardOutput.contains("\r\u{1B}[K  building "))
        #expect(terminal.standardOutput.contains("result: build-errors"))
        let piped = try await runProcess(Executables.kiln, ["run", "app"], in: home.path)
        #expect(!piped.standardOutput.contains("\u{1B}"))
        let lines = piped.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("  building         ") && $0.hasSuffix("s") })
        #expect(lines.contains("result: build-errors") || lines.contains { $0.hasPrefix("result: build-errors in ") })
    }
}
