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

/// What a person reads of each kind of issue: the one table of their words.
extension IssueType {
    /// How a commit status counts a kind: its new issues (`2 new warnings`), or, for kinds that
    /// stay a problem while open, its open ones as tests in a state (`1 test failing`).
    public enum StatusWords: Sendable, Hashable {
        case new(String)
        case openTests(String)
    }

    /// One issue of this kind in English (`test failure`), for counts: `CountText.of(2, noun)`.
    public var noun: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .testFailure: "test failure"
        case .analyzerWarning: "analyzer warning"
        case .performanceRegression: "performance regression"
        case .sanitizer: "sanitizer report"
        }
    }

    /// How commit statuses count it: `new error`, or for a kind that counts while it is open,
    /// what its tests are (`failing`).
    public var statusWords: StatusWords {
        switch self {
        case .testFailure: .openTests("failing")
        case .performanceRegression: .openTests("slower")
        default: .new("new " + noun)
        }
    }
}

extension IntegrationIssue {
    /// Its kind as mails and `kiln run` name it, with the check that found an analyzer warning:
    /// `analyzer-warning (license-header)`.
    public var kindLabel: String {
        check.map { "\(type.rawValue) (\($0.rawValue))" } ?? type.rawValue
    }
}
