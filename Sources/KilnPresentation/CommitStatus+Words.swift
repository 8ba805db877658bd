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

/// A commit status as a person reads it on the forge: what an integration adds, and who added it.
extension CommitStatus {
    /// The status of `integration` of `bot` at `stage` for `sha`; `issues` are the integration's
    /// own (for the completed stage). `publicURL` is the server's `public-url`.
    public init(
        of integration: Integration, bot: Bot, forge: ForgeSettings, stage: StatusStage, sha: String, issues: [IntegrationIssue], publicURL: String
    ) {
        let state: CommitState
        let description: String
        switch stage {
        case .awaiting:
            (state, description) = (.pending, "Integration \(integration.number) is waiting for a member's approval")
        case .queued:
            (state, description) = (.pending, "Queued as integration \(integration.number)")
        case .started:
            (state, description) = (.running, "Integration \(integration.number) running\(integration.host.map { " on \($0)" } ?? "")")
        case .failing:
            let progress = integration.progress ?? TestProgress(tests: 0, failed: 0)
            (state, description) = (.failure, "\(progress.failingSoFar); integration \(integration.number) still running")
        case .completed:
            let result = integration.result ?? .internalError
            (state, description) = (Self.state(of: result, forge: forge), Self.describe(integration, result: result, issues: issues))
        }
        let base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.init(
            bot: bot.name, integrationID: integration.id, kind: forge.kind, apiURL: forge.apiURL,
            project: ForgeSettings.project(of: bot.repository.url),
            tokenFile: forge.tokenFile, sha: sha, context: "kiln/\(bot.name)", state: state, description: description,
            targetURL: "\(base)/bots/\(bot.name)/integrations/\(integration.number)")
    }

    /// The coverage of the change of a completed integration, on a context of its own
    /// (`kiln/<bot>/coverage`): "patch 83.3 % (10 of 12 changed lines)", a failure below the
    /// bot's `coverage.patch` when the change has `coverage.min-lines` coverable lines or more.
    public static func coverage(
        of integration: Integration, patch: PatchCoverage, bot: Bot, forge: ForgeSettings, sha: String, publicURL: String
    ) -> CommitStatus {
        let settings = bot.coverage
        var description = patch.sentence
        let failed = settings.fails(patch)
        if let threshold = settings.patch {
            if failed {
                description += ", below \(threshold) %"
            } else if patch.coverable < settings.minLines {
                description += "; under \(CountText.of(settings.minLines, "line")), it fails nothing"
            }
        }
        var status = CommitStatus(
            of: integration, bot: bot, forge: forge, stage: .completed, sha: sha, issues: [], publicURL: publicURL)
        status.context = "kiln/\(bot.name)/coverage"
        status.state = failed ? .failure : .success
        status.description = String(description.prefix(maximumDescription))
        return status
    }

    /// The status after a queued integration moved on from `sha` to a newer commit.
    public func superseded(by newer: String) -> CommitStatus {
        var status = self
        status.state = .error
        status.description = "Superseded by \(ShortHash.text(newer)) before it was integrated"
        return status
    }

    /// "2 new warnings, 1 test failing (Alice)": what the integration adds, and who added it.
    public static func describe(_ integration: Integration, result: IntegrationResult, issues: [IntegrationIssue]) -> String {
        let new = issues.filter { $0.status == .new }
        var parts: [String] = []
        for kind in IssueType.allCases {
            switch kind.statusWords {
            case .new(let noun):
                let count = new.filter { $0.type == kind }.count
                if count > 0 { parts.append(CountText.of(count, noun)) }
            case .openTests(let state):
                let count = issues.filter { $0.type == kind && $0.status != .resolved }.count
                if count > 0 { parts.append(CountText.of(count, "test", plural: "tests") + " " + state) }
            }
        }
        var names: [String] = []
        for committer in new.flatMap(\.introducedBy) where !names.contains(committer.name) { names.append(committer.name) }
        let who = names.isEmpty ? "" : " (\(names.prefix(3).joined(separator: ", "))\(names.count > 3 ? " and others" : ""))"
        // A matrix's status stays one, named for the bot whatever its axes: it says which cells fail.
        let failing = issues.failingCells
        let cells = failing.isEmpty ? "" : failing.count > 3 ? " in \(failing.count) cells" : " in " + failing.joined(separator: ", ")
        if !parts.isEmpty, result != .canceled, result != .internalError, result != .timeout {
            return parts.joined(separator: ", ") + cells + who
        }
        let summary = integration.summary
        switch result {
        case .succeeded:
            let tests = summary?.tests ?? 0
            return tests > 0 ? "Succeeded: \(CountText.of(tests, "test")) passed" : "Succeeded"
        case .analyzerWarnings, .warnings, .buildErrors:
            // The kind that gives this result, counted: "2 warnings, none new".
            guard let kind = IssueType.allCases.first(where: { $0.result == result }) else { return result.rawValue }
            return "\(CountText.of(summary?[kind] ?? 0, kind.noun)), none new"
        case .testFailures: return "Tests failing"
        case .checkoutError: return "Checkout failed: " + (integration.reason?.sentence ?? "see the log")
        case .triggerError: return "A trigger failed: " + (integration.reason?.sentence ?? "see the log")
        case .timeout: return "Timed out"
        case .canceled: return "Canceled" + (integration.reason.map { ": \($0.sentence)" } ?? "")
        case .internalError: return "Kiln could not finish: " + (integration.reason?.sentence ?? "see the log")
        }
    }
}
