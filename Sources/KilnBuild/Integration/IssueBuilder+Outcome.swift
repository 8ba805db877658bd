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
import KilnPresentation

extension IssueBuilder {
    /// The outcome of an integration that got as far as building: its issues (the build's
    /// diagnostics with `carried` warnings, the analyzer's `findings`, and failed tests), counts
    /// and result. A build that failed without an error of its own gets one saying how `swift
    /// build` ended.
    ///
    /// Measurements that `regressed` are `performance-regression` issues, counted as test
    /// failures or as warnings as `regressions` says.
    public static func outcome(
        build: BuildOutput, carried: [Diagnostic], tests: TestOutput, findings: [Diagnostic] = [], regressed: [MeasuredRegression] = [],
        regressions: PerformanceSettings.Regressions = .failure
    ) -> IntegrationOutcome {
        var diagnostics = build.diagnostics + carried
        if !build.succeeded, !diagnostics.contains(where: { $0.severity == .error }) {
            diagnostics.append(Diagnostic.error("swift build \(build.end.description)"))
        }
        let issues =
            Self.issues(diagnostics: diagnostics, findings: findings, tests: tests.tests, sanitizerReports: tests.sanitizerReports)
            + regressed.map { found in
                IntegrationIssue(
                    type: .performanceRegression, message: found.regression.message(suite: found.test.suite, name: found.test.name),
                    file: found.test.file, line: found.test.line, fingerprint: hash("performance-regression|\(found.test.suite)|\(found.test.name)"))
            }
        // A regression ranks as a failing test, or as a warning (its count stays its own).
        let results = issues.map { $0.type == .performanceRegression && regressions == .warning ? .warnings : $0.type.result }
        let result = build.succeeded ? IntegrationResult.worst(results) : .buildErrors
        return IntegrationOutcome(result: result, tests: tests.tests, coverage: tests.coverage, issues: issues)
    }

    /// Who introduced each issue: the author of its line when `blame` says the line last changed
    /// in one of `commits` (the integration's), else everyone who committed in them.
    public static func attribute(
        _ issues: inout [IntegrationIssue], commits: [Commit], blame: (_ file: String, _ line: Int) async -> BlameLine?
    ) async {
        guard !commits.isEmpty else { return }
        let inRange = Set(commits.map(\.sha))
        let authors = Dictionary(commits.map { ($0.email, Committer(name: $0.author, email: $0.email, commit: $0.sha)) }) { first, _ in first }
            .values.sorted { $0.email < $1.email }
        for index in issues.indices {
            if let file = issues[index].file, let line = issues[index].line, !file.hasPrefix("/"), let found = await blame(file, line),
                inRange.contains(found.commit)
            {
                issues[index].introducedBy = [Committer(name: found.author, email: found.email, commit: found.commit)]
            } else {
                issues[index].introducedBy = authors
            }
        }
    }
}
