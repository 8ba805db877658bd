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

@Suite("Store: completing, recovery, retention")
struct CompletionTests {
    @Test("An analyzer warning keeps the check that found it, resolved too; other issues have none", arguments: Engine.allCases)
    func analyzerChecks(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let header = IntegrationIssue(
            type: .analyzerWarning, message: "no license header", file: "a.swift", line: 1, fingerprint: "h1", check: .licenseHeader)
        let warning = IntegrationIssue(type: .warning, message: "unused x", file: "a.swift", line: 3, fingerprint: "w1")
        _ = try await test.integrate("app", outcome: IntegrationOutcome(result: .analyzerWarnings, issues: [header, warning]))
        let first = try #require(try await test.store.integration(bot: "app", number: 1))
        #expect(first.issues.map(\.check) == [.licenseHeader, nil])
        _ = try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: 50)
        let second = try #require(try await test.store.integration(bot: "app", number: 2))
        #expect(second.issues.map(\.status) == [.resolved, .resolved] && second.issues.map(\.check) == [.licenseHeader, nil])
    }

    @Test("Completion stores issues, tests, commits and steps, and computes changes against the previous build", arguments: Engine.allCases)
    func completion(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let alice = Committer(name: "Alice", email: "alice@example.com", commit: "c1")
        let first = try await test.integrate(
            "app",
            outcome: IntegrationOutcome(
                result: .testFailures,
                tests: [
                    TestCase(suite: "AppTests", name: "testA", status: .passed, duration: 0.1),
                    TestCase(
                        suite: "AppTests", name: "testB", status: .failed, duration: 0.2, message: "nope", file: "Tests/AppTests/A.swift", line: 9),
                ], coverage: 50,
                issues: [
                    IntegrationIssue(type: .warning, message: "unused x", file: "a.swift", line: 3, fingerprint: "w1", introducedBy: [alice]),
                    IntegrationIssue(type: .warning, message: "unused y", file: "a.swift", line: 4, fingerprint: "w2"),
                ],
                commits: [Commit(sha: "c1", author: "Alice", email: "alice@example.com", date: test.at(-50), subject: "First")]))
        #expect(first.summary == Summary(issues: [.warning: 2, .testFailure: 1], tests: 2, coverage: 50))
        #expect(first.summary?.change(.warning) == nil, "nothing to compare with")
        #expect(first.duration == 9)

        // A canceled integration in between does not count as the previous one.
        _ = try await test.integrate("app", outcome: IntegrationOutcome(result: .canceled, reason: .canceled), at: 50)

        let third = try await test.integrate(
            "app",
            outcome: IntegrationOutcome(
                result: .succeeded, tests: [TestCase(suite: "AppTests", name: "testA", status: .passed, duration: 0.1)], coverage: 62.5,
                issues: [
                    IntegrationIssue(type: .warning, message: "unused x", file: "a.swift", line: 13, fingerprint: "w1"),
                    IntegrationIssue(type: .warning, message: "unused z", file: "b.swift", line: 1, fingerprint: "w3"),
                ]), at: 100)
        #expect(
            third.summary
                == Summary(
                    issues: [.warning: 2], tests: 1, coverage: 62.5,
                    issueChanges: Dictionary(uniqueKeysWithValues: IssueType.allCases.map { ($0, $0 == .testFailure ? -1 : 0) }),
                    testsChange: -1,
                    coverageChange: 12.5))
        let detail = try #require(try await test.store.integration(bot: "app", number: 3))
        #expect(detail.issues.map(\.fingerprint) == ["w1", "w3", "w2"])
        #expect(detail.issues.map(\.status) == [.unresolved, .new, .resolved])
        #expect(detail.issues.first?.introducedBy == [alice], "an unresolved issue keeps who introduced it")
        #expect(detail.steps.map(\.name) == [.checkout])
        #expect(detail.steps.first?.duration == 9)

        let firstDetail = try #require(try await test.store.integration(bot: "app", number: 1))
        #expect(firstDetail.tests.map(\.name) == ["testA", "testB"])
        #expect(firstDetail.tests.last?.message == "nope")
        #expect(firstDetail.commits.map(\.subject) == ["First"])
        let missing = try await test.store.integration(bot: "app", number: 9)
        #expect(missing == nil)
    }

    @Test("A failed build neither resolves the warnings and test failures it could not see, nor makes them new after", arguments: Engine.allCases)
    func failedBuildKeepsBaseline(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let warning = IntegrationIssue(type: .warning, message: "unused", file: "a.swift", line: 2, fingerprint: "w")
        let failure = IntegrationIssue(type: .testFailure, message: "S.t: nope", fingerprint: "t")
        try await test.integrate("app", outcome: IntegrationOutcome(result: .testFailures, issues: [warning, failure]))
        try await test.integrate("app", outcome: IntegrationOutcome(result: .buildErrors, issues: [.error("broken")]), at: 100)
        let broken = try #require(try await test.store.integration(bot: "app", number: 2))
        #expect(broken.issues.map(\.status) == [.new], "nothing resolved by a build that could not see it")
        try await test.integrate("app", outcome: IntegrationOutcome(result: .testFailures, issues: [warning, failure]), at: 200)
        let fixed = try #require(try await test.store.integration(bot: "app", number: 3))
        #expect(fixed.issues.map(\.fingerprint) == ["w", "t", IntegrationIssue.error("broken").fingerprint])
        #expect(fixed.issues.map(\.status) == [.unresolved, .unresolved, .resolved])
    }

    @Test("Steps are timed as the integration moves through them", arguments: Engine.allCases)
    func steps(engine: Engine) async throws {
        let test = try await TestStore(engine)
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: test.at(0))
        let claimed = try #require(try await test.store.claimNext(owner: "me", now: test.at(1)))
        try await test.store.setCommit(claimed, commit: "abc")
        try await test.store.advance(claimed, to: .building, now: test.at(3))
        try await test.store.advance(claimed, to: .testing, now: test.at(10))
        let running = try #require(try await test.store.botOverviews().first?.running.first)
        #expect(running.step == .testing && running.commit == "abc")
        try await test.store.complete(claimed, outcome: IntegrationOutcome(result: .succeeded), now: test.at(15))
        let detail = try #require(try await test.store.integration(bot: "app", number: 1))
        #expect(detail.steps.map(\.name) == [.checkout, .building, .testing])
        #expect(detail.steps.map(\.duration) == [2, 7, 5])
    }

    @Test("An integration left running by a stopped process is ended as internal-error, with the reason in its log", arguments: Engine.allCases)
    func recoveryAfterKill(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let holder = try ServerProcess(executable: Executables.storeStress, arguments: ["hold", test.location, "app"], in: test.directory.path)
        try await holder.waitForOutput("claimed 1")
        let output = "=== building\nCompiling...\n"
        if engine == .sqlite {
            try test.directory.write("logs/app/1.log", output)
        } else {
            try await test.execute("INSERT INTO log_chunk (integration_id, start_offset, data) SELECT id, 0, ? FROM integration", Array(output.utf8))
        }

        let store = test.store
        #expect(
            try await store.recoverAbandoned(isAlive: { ProcessOwner.isAlive($0, onHost: ProcessInfo.processInfo.hostName) }, now: Date()).isEmpty,
            "a live process keeps its integration")
        holder.sigkill()
        let recovered = try await store.recoverAbandoned(isAlive: { ProcessOwner.isAlive($0, onHost: ProcessInfo.processInfo.hostName) }, now: Date())
        #expect(recovered.map(\.number) == [1])
        #expect(recovered.first?.result == .internalError)
        let reason = try #require(recovered.first?.reason)
        guard case .abandoned(_, .building) = reason else { return #expect(Bool(false), "ended for another reason: \(reason)") }
        let log = try await test.log("app", 1)
        #expect(log.hasPrefix(output))
        #expect(log.contains("*** \(reason.sentence)"))
        // The bot integrates again afterwards.
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        #expect(try await store.claimNext(owner: ProcessOwner.current(host: ProcessInfo.processInfo.hostName), now: Date())?.number == 2)
    }

    @Test(
        "An abandoned integration whose reason cannot reach its log is not ended: the recovery says why, and ends it with the reason once it can",
        arguments: Engine.allCases)
    func recoveryNoteRefused(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        _ = try #require(try await store.claimNext(owner: "gone-host 1 1", now: Date()))
        // The log refuses a note: a folder where its file belongs, or a database that rejects the row.
        switch engine {
        case .sqlite:
            try FileManager.default.createDirectory(atPath: test.directory.url("logs/app/1.log"), withIntermediateDirectories: true)
        case .postgres:
            try await test.execute(
                "CREATE FUNCTION refuse_log() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'no room for logs'; END $$ LANGUAGE plpgsql")
            try await test.execute("CREATE TRIGGER refuse_log BEFORE INSERT ON log_chunk FOR EACH ROW EXECUTE FUNCTION refuse_log()")
        }
        await #expect(throws: StoreError.self, "the recovery says it could not write the reason") {
            try await store.recoverAbandoned(isAlive: { _ in false }, now: Date())
        }
        let waiting = try #require(try await store.integrations(bot: "app", limit: 1, before: nil).first)
        #expect(waiting.isRunning && waiting.result == nil, "not ended with nothing in its log to say why")

        switch engine {
        case .sqlite: try FileManager.default.removeItem(atPath: test.directory.url("logs/app/1.log"))
        case .postgres: try await test.execute("DROP TRIGGER refuse_log ON log_chunk")
        }
        let recovered = try await store.recoverAbandoned(isAlive: { _ in false }, now: Date())
        #expect(recovered.map(\.number) == [1] && recovered.first?.result == .internalError)
        #expect(recovered.first?.reason?.code == "abandoned", "\(String(describing: recovered.first?.reason))")
        #expect(try await test.log("app", 1).contains("*** the Kiln process running this integration"), "the reason's sentence is in the log")
    }

    @Test("Retention keeps summaries forever and the last N logs, issues and tests", arguments: Engine.allCases)
    func retention(engine: Engine) async throws {
        let test = try await TestStore(engine)
        for index in 0..<5 {
            let number = index + 1
            try test.directory.write("logs/app/\(number).log", "log \(number)\n")
            try await test.integrate(
                "app",
                outcome: IntegrationOutcome(
                    result: .succeeded, tests: [TestCase(suite: "S", name: "t", status: .passed, duration: 1)],
                    issues: [IntegrationIssue.error("e\(index)")]), at: Double(index * 100))
        }
        for index in 0..<3 { try await test.integrate("lib", outcome: IntegrationOutcome(result: .succeeded), at: Double(1000 + index * 100)) }
        #expect(try await test.store.applyRetention(keep: 2, bot: "lib") == 1, "one bot at a time, after each of its integrations")
        #expect(try await test.store.applyRetention(keep: 2, bot: nil) == 3)
        #expect(try await test.store.applyRetention(keep: 2, bot: nil) == 0, "already expired")
        let old = try #require(try await test.store.integration(bot: "app", number: 3))
        #expect(old.integration.expired)
        #expect(old.integration.summary?.tests == 1, "the summary stays")
        #expect(old.issues.isEmpty && old.tests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: test.directory.url("logs/app/3.log")))
        let kept = try #require(try await test.store.integration(bot: "app", number: 4))
        #expect(!kept.integration.expired && kept.tests.count == 1 && kept.issues.count >= 1)
        #expect(FileManager.default.fileExists(atPath: test.directory.url("logs/app/4.log")))
        #expect(try await test.store.integrations(bot: "app", limit: 10, before: nil).count == 5)
    }

    @Test("Bots as last loaded: problems recorded, removed files kept as not loaded", arguments: Engine.allCases)
    func bots(engine: Engine) async throws {
        let test = try await TestStore(engine)
        try await test.store.syncBots(
            [
                BotState(name: "app", file: "Bots/app.yml", repository: "https://example.com/app.git", branch: "main"),
                BotState(name: "broken", file: "Bots/broken.yml", repository: "", branch: "", problems: ["Bots/broken.yml:1:1: error: x"]),
            ], now: test.at(0))
        try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: 10)
        try await test.store.syncBots([BotState(name: "broken", file: "Bots/broken.yml", repository: "r", branch: "main")], now: test.at(20))
        let overviews = try await test.store.botOverviews()
        #expect(overviews.map(\.state.name) == ["app", "broken"])
        #expect(overviews.map(\.loaded) == [false, true])
        #expect(overviews.first?.last?.number == 1)
        #expect(overviews.last?.state.problems == [])
    }

    @Test("History pages by number, newest first", arguments: Engine.allCases)
    func paging(engine: Engine) async throws {
        let test = try await TestStore(engine)
        for index in 0..<7 { try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: Double(index * 100)) }
        #expect(try await test.store.integrations(bot: "app", limit: 3, before: nil).map(\.number) == [7, 6, 5])
        #expect(try await test.store.integrations(bot: "app", limit: 3, before: 5).map(\.number) == [4, 3, 2])
        #expect(try await test.store.integrations(bot: "nobody", limit: 3, before: nil).isEmpty)
    }
}
