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

// What an integration's page renders (Web/integration.mustache). The rules of ViewModels.swift hold here.

import KilnCore
import KilnPresentation

struct StepView {
    var name: String
    var duration: String
    /// Its section of the steps page.
    var url: String
}

struct CommitView {
    var sha: String
    var shortSHA: String
    var author: String
    var email: String
    var date: String
    var subject: String
}

struct IssueView {
    var type: String
    /// The check of the `analyze` step that found an analyzer warning (`license-header`).
    var check: String?
    var message: String
    var location: String?
    var introducedBy: String?
    /// For a matrix: the cells it was found in, "in default-debug-thread".
    var cells: String?
}

struct IssueGroupView {
    var title: String
    var status: String
    var issues: [IssueView]
    var count: Int
}

struct TestView {
    var suite: String
    var name: String
    var status: String
    var duration: String
    /// Why it failed, for a failing or flaky test.
    var message: String?
    /// The test's history page.
    var url: String
    /// For a matrix: the cell it ran in.
    var cell: String?
}

/// One cell of a matrix on its integration's page.
struct CellView {
    var name: String
    var result: String
    var tone: String
    var toolchain: String
    var version: String?
    var host: String?
    var duration: String
    var reason: String?
    var logURL: String
    /// Where its workspace came from.
    var workspace: String? = nil
}

/// The failing tests of a matrix against its cells: which failed where.
struct TestGridView {
    struct Entry {
        var text: String
        var tone: String
    }

    struct Row {
        var suite: String
        var name: String
        var url: String
        var entries: [Entry]
    }

    var columns: [String]
    var rows: [Row]

    /// Nil when no test failed (or was flaky) in any cell.
    init?(tests: [TestCase], cells: [String], url: (TestCase) -> String) {
        let failing = tests.filter { $0.status == .failed || $0.status == .flaky }
        guard !failing.isEmpty, !cells.isEmpty else { return nil }
        var seen: Set<String> = []
        columns = cells
        rows = failing.filter { seen.insert($0.key).inserted }.map { test in
            let results = tests.filter { $0.key == test.key }
            return Row(
                suite: test.suite, name: test.name, url: url(test),
                entries: cells.map { cell in
                    guard let result = results.first(where: { $0.cell == cell }) else { return Entry(text: "—", tone: "") }
                    let tone = result.counts ? "bad" : result.status == .flaky ? "warn" : result.status == .failed ? "neutral" : "good"
                    return Entry(text: result.status.rawValue, tone: tone)
                })
        }
    }
}

/// A test's `measure {}` in this integration, against its baseline on the same host.
struct MeasurementView {
    var suite: String
    var name: String
    var url: String
    var value: String
    var baseline: String
    var change: String
    /// `bad` for a regression, `good` for a measurement faster than its baseline.
    var tone: String
}

struct AssetView {
    var name: String
    var url: String
    var size: String
    var sha256: String
}

struct TriggerView {
    var name: String
    var phase: String
    var exitStatus: Int
    var failed: Bool
    var duration: String
}

struct IntegrationPage {
    var title: String
    var bot: String
    var botURL: String
    var number: Int
    /// The heading's facts, the same value the report mail renders.
    var report: IntegrationReport
    var running: Bool
    /// The host that ran it; nil while queued.
    var host: String?
    var pullRequest: PullRequestView?
    var commit: String
    var branch: String
    var queuedAt: String
    var startedAt: String
    var summary: IntegrationSummaryView
    var steps: [StepView]
    var commits: [CommitView]
    var hasCommits: Bool
    var issueGroups: [IssueGroupView]
    var hasIssues: Bool
    var failingTests: [TestView]
    var hasFailingTests: Bool
    /// Tests that failed, then passed when run again: shown apart, blaming nobody.
    var flakyTests: [TestView]
    /// "1 flaky test", for the summary; nil without any.
    var flakyText: String?
    /// Failures of quarantined tests: shown, but failing nothing.
    var quarantinedFailures: [TestView]
    /// "1 quarantined failure", for the summary; nil without any.
    var quarantinedText: String?
    /// "12 tests not run (fail-fast)", for the summary; nil when every test ran.
    var notRunText: String?
    var assets: [AssetView]
    var hasAssets: Bool
    var measurements: [MeasurementView]
    var hasMeasurements: Bool
    var tests: [TestView]
    var hasTests: Bool
    var testsShown: Int
    var testsTotal: Int
    var testsCut: Bool
    var triggers: [TriggerView]
    var hasTriggers: Bool
    /// The log's end, coloured as the terminal showed it, as HTML made by `LogHTML` (escaped there).
    var logTailHTML: String
    var logTruncated: Bool
    var logURL: String
    var expired: Bool
    /// The search for the commit that brought its failures, when there is one.
    var bisection: BisectionView?
    /// For a bot with a matrix: its cells, and its failing tests by cell.
    var cells: [CellView]
    var hasCells: Bool
    var testGrid: TestGridView?
    /// The dependencies the package pinned, as Kiln's mirrors had them.
    var dependencies: [DependencyView]
    var hasDependencies: Bool
    /// A signed-in member's forms' anti-forgery value, and where Cancel posts (while it runs).
    var csrf: String? = nil
    var cancelURL: String? = nil
    /// A member's Approve button, for a fork's pull request waiting for approval.
    var approveURL: String? = nil
    /// How much of the change its tests ran, and the changed lines none ran, by file.
    var patchCoverage: String? = nil
    /// Each file of the change's coverage, linked to its view with coverage.
    var patchFiles: [PatchFileView] = []
    /// Where its workspace came from (`WorkspaceOrigin.sentence`); a matrix's cells say theirs.
    var workspace: String? = nil
    /// The log as a page of its steps.
    var stepsURL = ""
    /// What happened to the action that sent the reader here, when it did nothing.
    var notice: String? = nil
    /// While its tests run: what they have shown so far (`TestProgress`).
    var progress: String? = nil
    /// Its new failures, first on the page, with their source lines (`Failures`).
    var failures: [FailureView] = []
    var hasFailures = false
    /// For a member on an integration that ended: where "Run again" posts, and whether "Run
    /// failed tests again" is offered too (something failed).
    var rerunURL: String? = nil
    var rerunFailed = false
    /// For a re-run: the integration it runs again.
    var rerunOf: RerunView? = nil
    /// Its commit's subject and author, and the forge's page of it.
    var subject: String? = nil
    var author: String? = nil
    var commitURL: String? = nil
}

struct RerunView {
    var text: String
    var url: String
}

struct DependencyView {
    var identity: String
    var version: String
    var location: String
    var mirror: String
    var tone: String
}

/// What an integration page says of its bisection: the culprit, or why it stopped, and the
/// bisect integrations it ran.
struct BisectionView {
    struct Step {
        var number: Int
        var url: String
    }

    var text: String
    var steps: [Step]

    init(_ bisection: Bisection, bot: String) {
        let count = CountText.of(bisection.integrations.count, "integration")
        switch bisection.state {
        case .found:
            let culprit = bisection.culpritCommit.map { "\(Formatting.shortSHA($0.sha)) (\($0.author))" } ?? "one commit"
            text = "bisected to \(culprit) in \(count)"
        case .failed:
            text = "bisection stopped after \(count): \(bisection.failure?.sentence ?? "no reason given")"
        case .running:
            text = "bisecting: \(count) so far"
        }
        steps = bisection.integrations.map { Step(number: $0, url: "/bots/\(bot)/integrations/\($0)") }
    }
}

/// One file of an integration's patch coverage, as its page lists it.
struct PatchFileView {
    var path: String
    var url: String
    var figure: String
    /// "7–12, 20", or nil when every coverable changed line ran.
    var uncovered: String?

    static func views(of patch: PatchCoverage?, bot: String, integration number: Int) -> [PatchFileView] {
        (patch?.files ?? []).map { file in
            PatchFileView(
                path: file.path, url: SourceLink.kilnView(file: file.path, bot: bot, integration: number),
                figure: file.figure, uncovered: file.uncovered.isEmpty ? nil : PatchCoverage.ranges(file.uncovered))
        }
    }
}
