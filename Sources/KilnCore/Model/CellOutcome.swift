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

/// What one cell of a matrix found, as its integration reads it back from the store once every
/// cell has ended: the cell's row (result, reason, version) and its issues and tests.
public struct CellOutcome: Sendable, Hashable {
    public var cell: Integration
    public var issues: [IntegrationIssue]
    public var tests: [TestCase]
    public var dependencies: [DependencyPin]

    public init(cell: Integration, issues: [IntegrationIssue], tests: [TestCase], dependencies: [DependencyPin] = []) {
        self.cell = cell
        self.issues = issues
        self.tests = tests
        self.dependencies = dependencies
    }
}

extension IntegrationOutcome {
    /// One integration's outcome from its cells' (in the matrix's order): its result is the worst
    /// result of the cells that ran (a cell canceled before it ran, for want of a host with its
    /// toolchain, says so in the reason instead; canceled when none ran); an issue found in
    /// several cells is one issue that lists them, blamed on everyone any cell blamed; every
    /// test result is kept with its cell.
    public static func merging(_ cells: [CellOutcome], commits: [Commit]) -> IntegrationOutcome {
        let ran = cells.filter { $0.cell.result != nil && $0.cell.result != .canceled }
        let result = ran.isEmpty ? IntegrationResult.canceled : IntegrationResult.worst(ran.compactMap(\.cell.result))
        let reasons = cells.compactMap { outcome -> IntegrationReason.CellReason? in
            guard let reason = outcome.cell.reason, outcome.cell.result?.isPassing != true else { return nil }
            return IntegrationReason.CellReason(cell: outcome.cell.cell?.name ?? "cell", reason: reason)
        }
        var issues: [IntegrationIssue] = []
        var index: [String: Int] = [:]
        for outcome in cells {
            let name = outcome.cell.cell.map { [$0.name] } ?? []
            for issue in outcome.issues {
                guard let at = index[issue.fingerprint] else {
                    index[issue.fingerprint] = issues.count
                    var first = issue
                    first.cells = name
                    issues.append(first)
                    continue
                }
                issues[at].cells += name.filter { !issues[at].cells.contains($0) }
                for committer in issue.introducedBy where !issues[at].introducedBy.contains(committer) {
                    issues[at].introducedBy.append(committer)
                }
            }
        }
        let tests = cells.flatMap { outcome in
            outcome.tests.map { test in
                var test = test
                test.cell = outcome.cell.cell?.name
                return test
            }
        }
        var outcome = IntegrationOutcome(
            result: result, reason: reasons.isEmpty ? nil : .cells(reasons), tests: tests,
            coverage: cells.lazy.compactMap(\.cell.summary?.coverage).first, issues: issues, commits: commits)
        outcome.cells = cells.compactMap(\.cell.cell?.name)
        outcome.patchCoverage = PatchCoverage.union(ran.compactMap(\.cell.patchCoverage))
        outcome.dependencies = cells.first { !$0.dependencies.isEmpty }?.dependencies ?? []
        return outcome
    }
}
