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

/// What `kiln run` prints when an integration ends: its result, each cell, the figures with their
/// changes, the failed and flaky tests, the new issues, and where the log is.
public enum TerminalReport {
    public static func summary(_ integration: Integration, detail: IntegrationDetail?, log: String) -> String {
        var lines: [String] = []
        let result = integration.result?.rawValue ?? "unknown"
        let duration = integration.duration.map { " in " + DurationText.tenths($0) } ?? ""
        lines.append("result: \(result)\(duration)\(integration.commit.map { " at \(ShortHash.text($0))" } ?? "")")
        if let reason = integration.reason { lines.append("  \(reason.sentence)") }
        for cell in detail?.cells ?? [] { lines.append(CellText.line(cell)) }
        if let summary = integration.summary, integration.result?.isBuilt == true { lines.append(figures(summary)) }
        if let patch = integration.patchCoverage {
            lines.append(patch.sentence)
            lines += patch.uncoveredLines.map { "  not run: \($0)" }
        }
        if let detail { lines += findings(detail) }
        lines.append("log: \(log)")
        return lines.joined(separator: "\n")
    }

    /// "errors 0, warnings 1 (+1), tests 5, failures 1": the kinds always counted, the tests
    /// before the kind counted from them, then the other kinds present, and coverage.
    static func figures(_ summary: Summary) -> String {
        func change(_ value: Int?) -> String { SummaryFigures.change(value).map { " (\($0))" } ?? "" }
        var figures: [String] = []
        for kind in IssueType.allCases where kind.alwaysCounted || summary[kind] != 0 || summary.change(kind) ?? 0 != 0 {
            if kind.countsTests { figures.append("tests \(summary.tests)\(change(summary.testsChange))") }
            let label = kind.countsTests ? "failures" : CountText.plural(of: kind.noun)
            figures.append("\(label) \(summary[kind])\(change(summary.change(kind)))")
        }
        if let coverage = summary.coverageText { figures.append("coverage \(coverage)") }
        return figures.joined(separator: ", ")
    }

    /// A line per failed or flaky test and per new issue that is not a test's.
    static func findings(_ detail: IntegrationDetail) -> [String] {
        var lines: [String] = []
        for test in detail.tests where test.status == .failed {
            let quarantined = test.quarantined ? " (quarantined: fails nothing)" : ""
            let location = test.file.map { " (\($0)\(test.line.map { ":\($0)" } ?? ""))" } ?? ""
            let cell = test.cell.map { " [\($0)]" } ?? ""
            lines.append("failed\(quarantined): \(test.suite).\(test.name)\(location)\(cell): \(test.message ?? "")")
        }
        for test in detail.tests where test.status == .flaky {
            lines.append("flaky: \(test.suite).\(test.name) (failed, then passed when run again): \(test.message ?? "")")
        }
        for issue in detail.issues where issue.status == .new && !issue.type.countsTests {
            let location = issue.file.map { "\($0)\(issue.line.map { ":\($0)" } ?? ""): " } ?? ""
            let cells = issue.cells.isEmpty ? "" : " [\(issue.cells.joined(separator: ", "))]"
            let check = issue.check.map { " (\($0.rawValue))" } ?? ""
            lines.append("new \(issue.type.noun)\(check): \(location)\(issue.message.split(separator: "\n").first ?? "")\(cells)")
        }
        return lines
    }
}
