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

/// What an integration of cause `rerun` runs again: another integration of its bot, on the same
/// commit (and pull request), whole or only what failed in it. JSON: `rerunOf: {number, only}`.
public struct Rerun: Sendable, Hashable, Codable {
    /// How much of the integration runs again.
    public enum Scope: String, Sendable, Hashable, Codable, CaseIterable {
        /// The whole integration: every step, every cell.
        case all
        /// Only its failed tests, and of a matrix only the cells that failed.
        case failed
    }

    /// The number of the integration it runs again.
    public var number: Int
    public var only: Scope

    public init(number: Int, only: Scope) {
        self.number = number
        self.only = only
    }

    /// Why an integration cannot be run again as asked; `RerunRefusal.sentence` says what to do.
    public enum Refusal: Error, Sendable, Hashable {
        /// It has not ended: there is nothing to run again yet.
        case notEnded(number: Int)
        /// It never learned its commit (it ended before checkout).
        case noCommit(number: Int)
        /// Only failed tests were asked for, and none failed (nor any cell).
        case nothingFailed(number: Int, result: IntegrationResult)
    }

    /// The request that runs `original` again: its commit, branch and pull request, nothing
    /// superseded, never joined with an integration of the branch's head.
    public static func request(_ original: IntegrationDetail, only: Scope) throws(Refusal) -> QueueRequest {
        let integration = original.integration
        guard integration.step == .completed, let result = integration.result else { throw .notEnded(number: integration.number) }
        guard let commit = integration.commit else { throw .noCommit(number: integration.number) }
        if only == .failed, !original.tests.contains(where: { $0.status == .failed }), failedCells(of: original).isEmpty {
            throw .nothingFailed(number: integration.number, result: result)
        }
        var request = QueueRequest(
            bot: integration.bot, cause: .rerun, commit: commit, branch: integration.branch, cancelSuperseded: false,
            pullRequest: integration.pullRequest)
        request.rerunOf = Rerun(number: integration.number, only: only)
        return request
    }

    /// The tests that failed in `original` (in `cell` of a matrix; any for nil), which a
    /// failed-only re-run runs: named tests only, since a test process that failed without a
    /// failing test names nothing to run alone.
    public static func failedTests(of original: IntegrationDetail, cell: String? = nil) -> [TestCase] {
        original.tests.filter { $0.status == .failed && !$0.isProcessFailure && (cell == nil || $0.cell == cell) }
    }

    /// The cells of a matrix integration that did not pass, which a failed-only re-run runs.
    public static func failedCells(of original: IntegrationDetail) -> [String] {
        original.cells.filter { cell in cell.result.map { !$0.isPassing } ?? false }.compactMap { $0.cell?.name }
    }
}
