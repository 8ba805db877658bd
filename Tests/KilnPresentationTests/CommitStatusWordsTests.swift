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

@testable import KilnPresentation

@Suite("Commit statuses and counts as a person reads them")
struct CommitStatusWordsTests {
    static var bot: Bot {
        get throws {
            Bot(
                name: "app", repository: Repository(url: try RepositoryURL(parsing: "https://github.com/example/app.git", relativeTo: "/")),
                forge: ForgeSettings(kind: .github, apiURL: "https://api.github.com", tokenFile: "/t"))
        }
    }

    static func integration(_ result: IntegrationResult, summary: Summary = Summary(), reason: IntegrationReason? = nil) -> Integration {
        Integration(
            id: 1, bot: "app", number: 7, cause: .webhook, commit: "abc", branch: "main", step: .completed, result: result, queuedAt: Date(),
            summary: summary, reason: reason, host: "build-1")
    }

    @Test("A status says what the integration adds and who added it, and its state follows the result and forge.warnings")
    func describing() throws {
        let alice = Committer(name: "Alice", email: "a@example.com", commit: "c1")
        let issues = [
            IntegrationIssue(type: .warning, message: "w1", fingerprint: "w1", status: .new, introducedBy: [alice]),
            IntegrationIssue(type: .warning, message: "w2", fingerprint: "w2", status: .new, introducedBy: [alice]),
            IntegrationIssue(type: .warning, message: "old", fingerprint: "w3", status: .unresolved),
            IntegrationIssue(type: .testFailure, message: "t", fingerprint: "t1", status: .unresolved),
        ]
        let bot = try Self.bot
        let forge = try #require(bot.forge)
        let failing = CommitStatus(
            of: Self.integration(.testFailures), bot: bot, forge: forge, stage: .completed, sha: "abc", issues: issues,
            publicURL: "https://ci.example.com/")
        #expect(failing.state == .failure && failing.description == "2 new warnings, 1 test failing (Alice)")
        #expect(
            failing.targetURL == "https://ci.example.com/bots/app/integrations/7" && failing.context == "kiln/app" && failing.project == "example/app"
        )
        let queued = CommitStatus(
            of: Self.integration(.succeeded), bot: bot, forge: forge, stage: .queued, sha: "abc", issues: [], publicURL: "http://x")
        #expect(queued.state == .pending && queued.description == "Queued as integration 7")
        let passed = CommitStatus(
            of: Self.integration(.succeeded, summary: Summary(tests: 1)), bot: bot, forge: forge, stage: .completed, sha: "abc", issues: [],
            publicURL: "http://x")
        #expect(passed.state == .success && passed.description == "Succeeded: 1 test passed")
        var strict = forge
        strict.warnings = .failure
        let warned = CommitStatus(
            of: Self.integration(.warnings, summary: Summary(issues: [.warning: 1])), bot: bot, forge: strict, stage: .completed, sha: "abc",
            issues: [issues[2]], publicURL: "http://x")
        #expect(warned.state == .failure && warned.description == "1 warning, none new")
        #expect(CommitStatus.state(of: .warnings, forge: forge) == .success && CommitStatus.state(of: .internalError, forge: forge) == .error)
        let finding = IntegrationIssue(
            type: .analyzerWarning, message: "[NeverForceUnwrap] …", fingerprint: "a1", status: .new, introducedBy: [alice])
        let analyzed = CommitStatus(
            of: Self.integration(.analyzerWarnings, summary: Summary(issues: [.analyzerWarning: 1])), bot: bot, forge: forge, stage: .completed,
            sha: "abc", issues: [finding], publicURL: "http://x")
        #expect(analyzed.state == .success && analyzed.description == "1 new analyzer warning (Alice)")
        let analyzedStrictly = CommitStatus(
            of: Self.integration(.analyzerWarnings, summary: Summary(issues: [.analyzerWarning: 2])), bot: bot, forge: strict, stage: .completed,
            sha: "abc", issues: [], publicURL: "http://x")
        #expect(analyzedStrictly.state == .failure && analyzedStrictly.description == "2 analyzer warnings, none new")
        let long = CommitStatus(
            of: Self.integration(.internalError, reason: .fault(stage: .other, message: String(repeating: "x", count: 400))), bot: bot, forge: forge,
            stage: .completed,
            sha: "abc", issues: [], publicURL: "http://x")
        #expect(long.description.count == CommitStatus.maximumDescription)

        // A matrix keeps the one status, named for the bot, and says which cells fail.
        let race = IntegrationIssue(type: .sanitizer, message: "race", fingerprint: "r", introducedBy: [alice], cells: ["default-debug-thread"])
        var everywhere = issues[0]
        everywhere.cells = ["default-debug-none", "default-debug-thread"]
        let matrix = CommitStatus(
            of: Self.integration(.testFailures), bot: bot, forge: forge, stage: .completed, sha: "abc", issues: [race, everywhere],
            publicURL: "http://x")
        #expect(matrix.context == "kiln/app" && matrix.description == "1 new warning, 1 new sanitizer report in default-debug-thread (Alice)")
    }

    @Test("Counts read as English, a figure per kind: those always counted, and the others when present")
    func counts() {
        #expect(CountText.of(0, "error") == "0 errors" && CountText.of(1, "warning") == "1 warning" && CountText.of(2, "test") == "2 tests")
        let figures = SummaryFigures(Summary(issues: [.warning: 1, .testFailure: 1], tests: 1, issueChanges: [.warning: 1]))
        #expect(
            figures.issues.map { $0.text + $0.among } == ["0 errors", "1 warning", "1 test failure of 1 test"],
            "kinds not counted nor changed are left out")
        #expect(figures.issues.map(\.separator) == ["", ", ", ", "])
        #expect(figures.issues.map(\.change) == [nil, "+1", nil] && figures.testsText == "1 test")
        let fixed = SummaryFigures(Summary(tests: 1, issueChanges: [.performanceRegression: -1]))
        #expect(fixed.issues.last?.text == "0 performance regressions" && fixed.issues.last?.change == "−1", "a kind that went away still shows")
        let first = SummaryFigures(Summary(issues: [.analyzerWarning: 2], tests: 3))
        #expect(
            first.issues.map { $0.text + $0.among } == ["0 errors", "0 warnings", "0 test failures of 3 tests", "2 analyzer warnings"],
            "nothing to compare with")
        #expect(
            first.columns.map(\.key) == ["errors", "warnings", "testFailures"]
                && SummaryFigures.columnTitles == ["Errors", "Warnings", "Test failures"])
    }

    @Test("A cell's line and kiln run's figures use the same words and changes as the pages")
    func terminal() {
        var cell = Self.integration(.testFailures, reason: .fault(stage: .readingBaseline, message: "the database is away"))
        cell.cell = Cell(configuration: .release)
        cell.swiftVersion = "Swift version 6.3.1"
        cell.startedAt = cell.queuedAt
        cell.endedAt = cell.queuedAt.addingTimeInterval(12.34)
        #expect(
            CellText.line(cell)
                == "cell default-release-none: test-failures in 12.3s on build-1 (Swift version 6.3.1): cannot read the integration to compare with: the database is away"
        )
        let summary = Summary(issues: [.warning: 1, .sanitizer: 1], tests: 5, issueChanges: [.warning: -2, .sanitizer: 1], testsChange: 1)
        #expect(
            TerminalReport.figures(summary) == "errors 0, warnings 1 (−2), tests 5 (+1), failures 0, sanitizer reports 1 (+1)",
            "the same change as SummaryFigures writes: \(SummaryFigures(summary).issues.compactMap(\.change))")
    }

    @Test("A regression's message names the test, both figures, the change and the host")
    func regression() throws {
        let steady = [0.040, 0.042, 0.041, 0.043, 0.039, 0.040, 0.044, 0.041, 0.042, 0.040]
        let regression = try #require(PerformanceRegression.judge(steady.map { $0 * 1.4 }, baseline: steady, tolerance: 0.1, host: "build-2"))
        #expect(regression.message(suite: "PTests", name: "testSpeed") == "PTests.testSpeed: 0.057 s, 40% slower than 0.041 s on build-2")
        #expect(ByteCount.text(512) == "512 bytes" && ByteCount.text(3 << 20) == "3.0 MiB")
    }
}
