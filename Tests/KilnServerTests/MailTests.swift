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
import KilnMail
import KilnPresentation
import KilnStore
import KilnTestSupport
import Logging
import Testing

@testable import KilnServer

/// A store, bot files, the notifier and the mailer, delivering to a real SMTP server.
struct MailFixture {
    let directory: TemporaryDirectory
    let store: SQLiteStore
    let registry: BotRegistry
    let mailer: Mailer
    let notifier: Notifier
    let clock: ManualClock

    static let utc = TimeZone(identifier: "UTC") ?? .current
    static let start = PeriodicScheduleTests.date("2026-11-20T10:00:00Z")

    init(
        bots: [String: String], smtpURL: String, retry: RetryPolicy = RetryPolicy(), timers: Bool = false, tick: Duration = .seconds(1)
    ) async throws {
        directory = try TemporaryDirectory("kiln-mail")
        for (name, text) in bots { try directory.write("Bots/\(name).yml", text) }
        store = try SQLiteStore.open(dataDirectory: directory.url("data"))
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        registry = BotRegistry(directory: directory.url("Bots"), store: store, logger: logger)
        try await registry.reload()
        clock = ManualClock(Self.start)
        notifier = Notifier(
            store: store, templates: try MailTemplates.load(), from: EmailAddress(name: "Kiln", address: "kiln@example.com"),
            publicURL: "http://ci.example.com/", reports: ReportTimes(), timeZone: Self.utc)
        let clock = clock
        mailer = Mailer(
            store: store, registry: registry,
            delivery: Mailer.Delivery(notifier: notifier, client: SMTPClient(url: smtpURL, connectTimeout: .seconds(2)), sender: "kiln@example.com"),
            settings: .init(retry: retry, tick: tick), logger: logger, clock: timers ? clock.timers : clock.wall)
    }

    /// Records a completed integration of `bot` at the clock's time, then moves the clock on a minute.
    @discardableResult
    func integrate(
        _ bot: String, _ result: IntegrationResult, reason: IntegrationReason? = nil, issues: [IntegrationIssue] = [], tests: [TestCase] = []
    ) async throws -> Integration {
        let now = clock.now
        let integration = try await store.record(
            bot,
            outcome: IntegrationOutcome(
                result: result, reason: reason, tests: tests, issues: issues,
                commits: [Commit(sha: "abc1234", author: "Alice", email: "alice@example.com", date: now, subject: "Change things")]),
            commit: "abc1234", at: now, duration: 30)
        clock.set(now.addingTimeInterval(60))
        return integration
    }
}

let alice = Committer(name: "Alice Ünal", email: "alice@example.com", commit: "a1a1a1a1a1a1")
let bob = Committer(name: "Bob", email: "bob@other.org", commit: "b2b2b2b2b2b2")
let carol = Committer(name: "Carol", email: "carol@example.com", commit: "c3c3c3c3c3c3")

func issue(_ type: IssueType, _ message: String, by committers: [Committer], line: Int = 1) -> IntegrationIssue {
    IntegrationIssue(type: type, message: message, file: "Sources/App/App.swift", line: line, fingerprint: message, introducedBy: committers)
}

@Suite("Email triggers, delivered to a real SMTP server")
struct MailTests {
    static let newIssuesBot = """
        repository: {url: 'https://example.com/app.git'}
        schedule: {poll: 0}
        triggers:
          - email: new-issues
            issues: [errors, test-failures, license-header]
            cc: [lead@example.com, outsider@elsewhere.net]
            allowed-domains: [example.com]
        """

    @Test("new-issues: one mail per committer with only their issues, cc copied, other domains left out, nothing twice")
    func newIssues() async throws {
        let server = try await SMTPServer.start()
        let fixture = try await MailFixture(bots: ["app": Self.newIssuesBot], smtpURL: server.url)
        try await fixture.integrate("app", .succeeded, issues: [issue(.error, "old problem", by: [carol])])
        #expect(await fixture.mailer.round() == 1, "carol's first error is new")
        _ = try await server.waitForMessages(1)

        try await fixture.integrate(
            "app", .buildErrors,
            issues: [
                issue(.error, "old problem", by: [carol]),  // unresolved now: not mailed again
                issue(.error, "cannot find 'x' in scope", by: [alice], line: 10),
                {
                    var failure = issue(.testFailure, "XCTAssertEqual failed", by: [alice], line: 20)
                    failure.cells = ["default-release-none", "6.2-release-none"]
                    return failure
                }(),
                issue(.warning, "unused variable", by: [alice], line: 30),  // warnings not selected
                issue(.error, "type mismatch", by: [bob], line: 40),  // other.org is not allowed
                {
                    var header = issue(.analyzerWarning, "no license header", by: [alice], line: 50)
                    header.check = .licenseHeader  // a check the trigger names
                    return header
                }(),
                {
                    var format = issue(.analyzerWarning, "[Indentation] indent by 4", by: [alice], line: 60)
                    format.check = .format  // one it does not
                    return format
                }(),
            ])
        #expect(await fixture.mailer.round() == 1)
        #expect(await fixture.mailer.round() == 0, "a second round sends nothing again")
        let messages = try await server.waitForMessages(2)
        #expect(messages.count == 2)
        let toAlice = try #require(messages.last)
        #expect(Set(toAlice.to) == ["alice@example.com", "lead@example.com"])
        #expect(toAlice.headers["To"] == "Alice Ünal <alice@example.com>")
        #expect(toAlice.headers["Cc"] == "lead@example.com")
        #expect(toAlice.subject == "[app] #2: 3 new issues from your commits")
        let text = try #require(toAlice.parts["text/plain"])
        #expect(text.contains("Hello Alice Ünal"))
        #expect(text.contains("Sources/App/App.swift:10: cannot find 'x' in scope (commit a1a1a1a1a1)"))
        #expect(text.contains("XCTAssertEqual failed (in default-release-none, 6.2-release-none) (commit a1a1a1a1a1)"), "a matrix's cells: \(text)")
        #expect(text.contains("- analyzer-warning (license-header): Sources/App/App.swift:50: no license header (commit a1a1a1a1a1)"), "\(text)")
        #expect(!text.contains("unused variable") && !text.contains("type mismatch") && !text.contains("old problem"))
        #expect(!text.contains("Indentation"), "a check the trigger does not name is not mailed")
        #expect(text.contains("http://ci.example.com/bots/app/integrations/2"))
        let html = try #require(toAlice.parts["text/html"])
        #expect(html.contains("cannot find &#39;x&#39; in scope"))
        #expect(toAlice.headers["List-Id"] == "<app.kiln.ci.example.com>")

        try await fixture.integrate("app", .succeeded)
        #expect(await fixture.mailer.round() == 0, "nothing new, no mail")
    }

    @Test("report every: change mails when the result goes from passing to failing and back, only then")
    func everyChange() async throws {
        let server = try await SMTPServer.start()
        let bot =
            "repository: {url: 'https://example.com/app.git'}\nschedule: {poll: 0}\ntriggers: [{email: report, every: change, to: [team@example.com]}]\n"
        let fixture = try await MailFixture(bots: ["app": bot], smtpURL: server.url)
        let tests = [
            TestCase(suite: "AppTests", name: "testA", status: .failed, duration: 0.1),
            TestCase(suite: "AppTests", name: "testB", status: .passed, duration: 0.1),
        ]
        for result in [IntegrationResult.succeeded, .warnings, .testFailures, .canceled, .buildErrors, .succeeded, .succeeded] {
            try await fixture.integrate("app", result, tests: result == .testFailures ? tests : [])
            await fixture.mailer.round()
        }
        let messages = try await server.waitForMessages(2)
        #expect(messages.map(\.subject) == ["[app] #3 broken: test-failures", "[app] #6 fixed: succeeded"])
        #expect(messages.allSatisfy { $0.to == ["team@example.com"] })
        let broken = try #require(messages.first?.parts["text/plain"])
        #expect(broken.contains("app #3: test-failures (broken)"))
        #expect(broken.contains("0 errors, 0 warnings, 1 test failure of 2 tests"))
        #expect(messages.first?.parts["text/html"]?.contains("0 errors, 0 warnings, 1 test failure of 2 tests") == true)
    }

    @Test("A report mail says what the integration's page says: result, the reason's sentence, cause, short commit, time, failing tests")
    func reportAsThePage() async throws {
        let server = try await SMTPServer.start()
        let bot =
            "repository: {url: 'https://example.com/app.git'}\nschedule: {poll: 0}\ntriggers: [{email: report, every: integration, to: [team@example.com]}]\n"
        let fixture = try await MailFixture(bots: ["app": bot], smtpURL: server.url)
        let failing = TestCase(suite: "AppTests", name: "testSlow", status: .failed, duration: 1800)
        let integration = try await fixture.integrate("app", .timeout, reason: .timedOut(limit: .seconds(1800)), tests: [failing])
        #expect(await fixture.mailer.round() == 1)
        let mail = try #require(try await server.waitForMessages(1).first)
        let text = try #require(mail.parts["text/plain"])
        let detail = try #require(try await fixture.store.integration(bot: "app", number: integration.number))
        let report = IntegrationReport(detail, now: fixture.clock.now)
        #expect(report.reason == "the integration ran longer than its timeout of 30m" && report.shortCommit == "abc1234")
        #expect(text.hasPrefix("app #\(integration.number): timeout\n\(try #require(report.reason))\n"), "\(text)")
        #expect(text.contains("Cause: \(report.cause), commit abc1234, took \(report.duration)"), "\(text)")
        #expect(text.contains("Failing tests:\n- AppTests.testSlow"), "\(text)")
        #expect(mail.parts["text/html"]?.contains("<p>the integration ran longer than its timeout of 30m</p>") == true)
    }

    @Test("A report lists flaky tests apart from failures, and a flaky test alone mails no committer")
    func flakyInReport() async throws {
        let server = try await SMTPServer.start()
        let bot = """
            repository: {url: 'https://example.com/app.git'}
            schedule: {poll: 0}
            triggers: [{email: report, every: integration, to: [team@example.com]}, {email: new-issues}]

            """
        let fixture = try await MailFixture(bots: ["app": bot], smtpURL: server.url)
        try await fixture.integrate(
            "app", .succeeded,
            tests: [
                TestCase(suite: "AppTests", name: "testRace", status: .flaky, duration: 0.1, message: "timed out"),
                TestCase(suite: "AppTests", name: "testB", status: .passed, duration: 0.1),
            ])
        #expect(await fixture.mailer.round() == 1, "the report only: a flaky test is no new issue")
        let report = try #require(try await server.waitForMessages(1).first)
        #expect(report.to == ["team@example.com"])
        let text = try #require(report.parts["text/plain"])
        #expect(text.contains("Flaky tests (failed, then passed when run again; not failures):\n- AppTests.testRace"), "\(text)")
        #expect(!text.contains("Failing tests"))
        #expect(report.parts["text/html"]?.contains("<h3>Flaky tests</h3>") == true)
    }

    @Test("issues: [analyzer-warnings] mails a committer their new analyzer warnings alone; the report counts them")
    func analyzerWarnings() async throws {
        let server = try await SMTPServer.start()
        let bot = """
            repository: {url: 'https://example.com/app.git'}
            schedule: {poll: 0}
            triggers: [{email: report, every: integration, to: [team@example.com]}, {email: new-issues, issues: [analyzer-warnings]}]

            """
        let fixture = try await MailFixture(bots: ["app": bot], smtpURL: server.url)
        try await fixture.integrate(
            "app", .analyzerWarnings,
            issues: [
                issue(.analyzerWarning, "[NeverForceUnwrap] do not force unwrap 'x'", by: [alice], line: 7),
                issue(.warning, "unused variable", by: [alice], line: 30),  // warnings not selected
            ])
        #expect(await fixture.mailer.round() == 2, "the report, and Alice's new analyzer warning")
        let messages = try await server.waitForMessages(2)
        let report = try #require(messages.first { $0.to == ["team@example.com"] })
        #expect(report.parts["text/plain"]?.contains("1 analyzer warning") == true, "\(report.parts["text/plain"] ?? "")")
        let toAlice = try #require(messages.first { $0.to == ["alice@example.com"] })
        let text = try #require(toAlice.parts["text/plain"])
        #expect(text.contains("Sources/App/App.swift:7: [NeverForceUnwrap] do not force unwrap 'x'"), "\(text)")
        #expect(!text.contains("unused variable"))
    }

    @Test("A lint finding, then a broken build, then the fix: the finding is unresolved, not new, and nobody is mailed for it again")
    func lookBackOverBrokenBuild() async throws {
        let server = try await SMTPServer.start()
        let bot = """
            repository: {url: 'https://example.com/app.git'}
            schedule: {poll: 0}
            triggers: [{email: new-issues, issues: [analyzer-warnings]}]

            """
        let fixture = try await MailFixture(bots: ["app": bot], smtpURL: server.url)
        let finding = issue(.analyzerWarning, "[NeverForceUnwrap] do not force unwrap 'x'", by: [alice], line: 7)
        try await fixture.integrate("app", .analyzerWarnings, issues: [finding])
        #expect(await fixture.mailer.round() == 1, "Alice's new finding")
        // A broken build hides the analyzer's findings: they are neither there nor resolved.
        try await fixture.integrate("app", .buildErrors, issues: [issue(.error, "cannot find 'y' in scope", by: [bob], line: 9)])
        #expect(await fixture.mailer.round() == 0, "errors are not among the bot's mailed kinds")
        var moved = finding
        moved.line = 8
        moved.introducedBy = [bob]
        let third = try await fixture.integrate("app", .analyzerWarnings, issues: [moved])
        #expect(await fixture.mailer.round() == 0, "the finding is not new: nobody is mailed for it again")
        let detail = try #require(try await fixture.store.integration(bot: "app", number: third.number))
        let found = try #require(detail.issues.first { $0.type == .analyzerWarning })
        #expect(found.status == .unresolved && found.introducedBy == [alice], "looked back past the broken build to the first: \(detail.issues)")
        #expect(detail.issues.first { $0.type == .error }?.status == .resolved)
        #expect(try await server.waitForMessages(1).count == 1)
    }

    @Test("The SMTP server down at first: the mail waits with its error, then is delivered exactly once")
    func outage() async throws {
        let port = SMTPServer.freePort()
        let bot =
            "repository: {url: 'https://example.com/app.git'}\nschedule: {poll: 0}\ntriggers: [{email: report, every: integration, to: [team@example.com]}]\n"
        let fixture = try await MailFixture(
            bots: ["app": bot], smtpURL: "smtp://127.0.0.1:\(port)", retry: RetryPolicy(first: .milliseconds(100), longest: .milliseconds(200)))
        try await fixture.integrate("app", .succeeded)
        #expect(await fixture.mailer.round() == 0)
        #expect(await fixture.mailer.round() == 0)
        var outbox = try await fixture.store.outbox(limit: 10)
        #expect(outbox.queued == 1 && outbox.sent == 0)
        #expect(outbox.undelivered.first?.attempts ?? 0 >= 1)
        #expect(outbox.undelivered.first?.lastError?.contains("cannot reach the SMTP server smtp://127.0.0.1:\(port)") == true)

        let server = try await SMTPServer.start(.init(port: port))
        fixture.clock.set(fixture.clock.now.addingTimeInterval(60))
        #expect(await fixture.mailer.round() == 1)
        fixture.clock.set(fixture.clock.now.addingTimeInterval(3600))
        #expect(await fixture.mailer.round() == 0)
        #expect(try await server.waitForMessages(1).count == 1)
        try await Task.sleep(for: .milliseconds(300))
        #expect(try server.messages().count == 1)
        outbox = try await fixture.store.outbox(limit: 10)
        #expect(outbox.queued == 0 && outbox.sent == 1 && outbox.undelivered.isEmpty)
    }

    @Test("The running mailer's rounds follow its clock: a mail waiting out its retry goes when the test moves the clock an hour")
    func roundsOnTheClock() async throws {
        let port = SMTPServer.freePort()
        let bot =
            "repository: {url: 'https://example.com/app.git'}\nschedule: {poll: 0}\ntriggers: [{email: report, every: integration, to: [team@example.com]}]\n"
        let fixture = try await MailFixture(
            bots: ["app": bot], smtpURL: "smtp://127.0.0.1:\(port)", retry: RetryPolicy(first: .seconds(60), longest: .seconds(60)), timers: true,
            tick: .seconds(3600))
        try await fixture.integrate("app", .succeeded)
        let running = Task { try await fixture.mailer.run() }
        defer { running.cancel() }
        // The first round, at start, finds no server; the next waits a tick of the clock.
        try await PeriodicScheduleTests.waitUntil("the first attempt to fail") {
            try await fixture.store.outbox(limit: 10).undelivered.first?.attempts ?? 0 >= 1
        }
        let server = try await SMTPServer.start(.init(port: port))
        try await PeriodicScheduleTests.waitUntil("the mailer to sleep on the clock") { fixture.clock.sleeping >= 1 }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try server.messages().isEmpty, "no round before the clock moves")

        fixture.clock.advance(by: 3600)
        #expect(try await server.waitForMessages(1).count == 1)
        // The server has the mail before the mailer hears its answer and records it as sent.
        try await PeriodicScheduleTests.waitUntil("the mail to be recorded as sent") {
            let outbox = try await fixture.store.outbox(limit: 10)
            return outbox.queued == 0 && outbox.sent == 1
        }
    }

    @Test("A 550 refusal fails the mail for good, with the server's answer recorded")
    func permanentRefusal() async throws {
        let server = try await SMTPServer.start(.init(reject: ["team@example.com"]))
        let bot =
            "repository: {url: 'https://example.com/app.git'}\nschedule: {poll: 0}\ntriggers: [{email: report, every: integration, to: [team@example.com]}]\n"
        let fixture = try await MailFixture(bots: ["app": bot], smtpURL: server.url)
        try await fixture.integrate("app", .succeeded)
        #expect(await fixture.mailer.round() == 0)
        let outbox = try await fixture.store.outbox(limit: 10)
        #expect(outbox.failed == 1 && outbox.queued == 0)
        let error = try #require(outbox.undelivered.first?.lastError)
        #expect(error.contains("550"))
        #expect(outbox.undelivered.first?.responseCode == 550, "the server's reply code is kept beside its words")
        #expect(try server.messages().isEmpty)
    }

    @Test("A daily digest at the reports time covers the day just ended, once, also across a restart")
    func dailyDigest() async throws {
        let server = try await SMTPServer.start()
        let report = "triggers: [{email: report, every: daily, to: [team@example.com]}]\n"
        let fixture = try await MailFixture(
            bots: [
                "app": "repository: {url: 'https://example.com/app.git'}\nschedule: {poll: 0}\n\(report)",
                "lib": "repository: {url: 'https://example.com/lib.git'}\nschedule: {poll: 0}\n\(report)",
            ], smtpURL: server.url)
        // 2026-11-20 10:00 onwards: three integrations of app, one of lib, all before the next 08:00.
        try await fixture.integrate(
            "app", .succeeded,
            tests: [
                TestCase(suite: "AppTests", name: "testSlow", status: .passed, duration: 4.5),
                TestCase(suite: "AppTests", name: "testRace", status: .flaky, duration: 0.1),
            ])
        try await fixture.integrate("app", .testFailures, issues: [issue(.error, "broken", by: [alice])])
        try await fixture.integrate("app", .succeeded)
        try await fixture.integrate("lib", .buildErrors)
        #expect(await fixture.mailer.round() == 0, "no digest before the reports time")

        fixture.clock.set(PeriodicScheduleTests.date("2026-11-21T08:00:05Z"))
        #expect(await fixture.mailer.round() == 1)
        #expect(await fixture.mailer.round() == 0)
        let digest = try #require(try await server.waitForMessages(1).first)
        #expect(digest.subject == "Kiln daily report, 2026-11-21 08:00")
        #expect(digest.to == ["team@example.com"])
        let text = try #require(digest.parts["text/plain"])
        #expect(text.contains("== app: now succeeded"))
        #expect(text.contains("3 integrations, 2 succeeded, 1 test-failures"))
        #expect(text.contains("issues introduced 1, resolved 1"))
        #expect(text.contains("AppTests.testSlow 4.5 s"))
        #expect(text.contains("Flaky tests (failed, then passed when run again; not failures):\n- AppTests.testRace, once"), "\(text)")
        #expect(text.contains("== lib: now build-errors"))

        // A restarted server (a new mailer) at 09:00 the same day sends it again? No.
        let restarted = Mailer(
            store: fixture.store, registry: fixture.registry,
            delivery: Mailer.Delivery(notifier: fixture.notifier, client: SMTPClient(url: server.url), sender: "kiln@example.com"),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            clock: WallClock { PeriodicScheduleTests.date("2026-11-21T09:00:00Z") })
        #expect(await restarted.round() == 0)
        #expect(try server.messages().count == 1)
    }
}
