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

/// A script or an email around an integration.
public enum Trigger: Sendable, Hashable {
    case script(ScriptTrigger)
    case email(EmailTrigger)
}

public enum TriggerPhase: String, CaseIterable, Sendable, Hashable {
    case before, after
}

/// A shell command run in the workspace before or after the build.
public struct ScriptTrigger: Sendable, Hashable {
    public var name: String
    public var phase: TriggerPhase
    /// The results after which an `after` script runs; all of them unless the file says otherwise.
    public var on: Set<IntegrationResult>
    /// The command, run with `/bin/sh -c`.
    public var run: String

    public init(name: String, phase: TriggerPhase, on: Set<IntegrationResult> = Set(IntegrationResult.allCases), run: String) {
        self.name = name
        self.phase = phase
        self.on = on
        self.run = run
    }
}

/// An email sent around integrations.
public struct EmailTrigger: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// To the committers who introduced new issues of these kinds.
        case newIssues(IssueSelection)
        /// A summary for a wider audience.
        case report(ReportFrequency)
    }

    public var kind: Kind
    public var to: [EmailAddress]
    public var cc: [EmailAddress]
    /// Recipients outside these domains are dropped; empty means any domain.
    public var allowedDomains: [String]

    public init(kind: Kind, to: [EmailAddress] = [], cc: [EmailAddress] = [], allowedDomains: [String] = []) {
        self.kind = kind
        self.to = to
        self.cc = cc
        self.allowedDomains = allowedDomains
    }

    /// Whether mail may go to `address` under `allowedDomains`.
    public func allows(_ address: EmailAddress) -> Bool {
        allowedDomains.isEmpty || allowedDomains.contains { $0.caseInsensitiveCompare(address.domain) == .orderedSame }
    }
}

public enum ReportFrequency: String, CaseIterable, Sendable, Hashable {
    /// After every integration.
    case integration
    /// When the result changes between passing and failing (broken or fixed).
    case change
    case daily
    case weekly
}

/// The issues a new-issues email is about (`issues: [errors, analyzer-warnings]`): issues of
/// `types`, and analyzer warnings of `checks` (`issues: [errors, license-header]`).
public struct IssueSelection: Sendable, Hashable {
    public var types: Set<IssueType>
    public var checks: Set<AnalyzerCheck>

    public init(types: Set<IssueType> = Set(IssueType.allCases), checks: Set<AnalyzerCheck> = []) {
        self.types = types
        self.checks = checks
    }

    /// Every issue.
    public static let all = IssueSelection()

    public func contains(_ issue: IntegrationIssue) -> Bool {
        types.contains(issue.type) || issue.check.map(checks.contains) == true
    }

    /// The names a bot file may list: the kinds' plurals, then the checks' names.
    public static let names = IssueType.allCases.map(\.pluralName) + AnalyzerCheck.allCases.map(\.rawValue)

    /// The selection `names` (from `names`) make.
    public init(names: [String]) {
        self.init(
            types: Set(names.compactMap(IssueType.init(pluralName:))), checks: Set(names.compactMap(AnalyzerCheck.init(rawValue:))))
    }
}
