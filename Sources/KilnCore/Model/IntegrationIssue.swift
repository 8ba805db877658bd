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

/// An error, warning or test failure an integration found.
public struct IntegrationIssue: Sendable, Hashable {
    public var type: IssueType
    public var message: String
    /// Relative to the repository root; nil when the issue has no location.
    public var file: String?
    public var line: Int?
    /// Identifies the issue across integrations, surviving line shifts.
    public var fingerprint: String
    public var status: IssueStatus
    public var introducedBy: [Committer]
    /// The matrix cells it was found in, in the matrix's order; empty for a bot without `matrix`.
    /// One issue, however many cells: a failure everywhere is mailed once.
    public var cells: [String]
    /// The check of the `analyze` step that found an analyzer warning; nil for other kinds.
    public var check: AnalyzerCheck?

    public init(
        type: IssueType, message: String, file: String? = nil, line: Int? = nil, fingerprint: String, status: IssueStatus = .new,
        introducedBy: [Committer] = [], cells: [String] = [], check: AnalyzerCheck? = nil
    ) {
        self.type = type
        self.message = message
        self.file = file
        self.line = line
        self.fingerprint = fingerprint
        self.status = status
        self.introducedBy = introducedBy
        self.cells = cells
        self.check = check
    }
}

extension [IntegrationIssue] {
    /// The cells of a matrix where an open issue that breaks (an error, a failing test, a
    /// sanitizer report, a regression) was found, in the order the issues name them.
    public var failingCells: [String] {
        var cells: [String] = []
        for issue in self where issue.status != .resolved && issue.type.breaks {
            for cell in issue.cells where !cells.contains(cell) { cells.append(cell) }
        }
        return cells
    }
}

public enum IssueStatus: String, CaseIterable, Codable, Sendable, Hashable {
    /// First seen in this integration.
    case new
    /// Seen before and still there.
    case unresolved
    /// Seen in the previous integration and gone now.
    case resolved
}

/// Someone who introduced an issue.
public struct Committer: Sendable, Hashable, Codable {
    public var name: String
    public var email: String
    public var commit: String
    /// Found by bisection (integrating the commits of the range one by one), not by blame.
    public var bisected: Bool

    public init(name: String, email: String, commit: String, bisected: Bool = false) {
        self.name = name
        self.email = email
        self.commit = commit
        self.bisected = bisected
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        email = try container.decode(String.self, forKey: .email)
        commit = try container.decode(String.self, forKey: .commit)
        bisected = try container.decodeIfPresent(Bool.self, forKey: .bisected) ?? false
    }
}

extension IntegrationIssue {
    /// Marks `current` against the open issues of the previous integration: an issue whose
    /// fingerprint was open before is unresolved, any other is new; previously open issues that are
    /// gone come back marked resolved. Introduced-by is kept from the first sighting.
    ///
    /// `known` are the types this integration could observe: a build that failed runs no tests and
    /// may not report every warning, so earlier issues of other types are not called resolved.
    public static func statuses(
        current: [IntegrationIssue], previous: [IntegrationIssue], known: Set<IssueType> = Set(IssueType.allCases)
    ) -> [IntegrationIssue] {
        let open = previous.filter { $0.status != .resolved }
        var openByFingerprint: [String: IntegrationIssue] = [:]
        for issue in open where openByFingerprint[issue.fingerprint] == nil { openByFingerprint[issue.fingerprint] = issue }
        var seen: Set<String> = []
        var marked: [IntegrationIssue] = []
        for var issue in current where seen.insert(issue.fingerprint).inserted {
            if let before = openByFingerprint[issue.fingerprint] {
                issue.status = .unresolved
                issue.introducedBy = before.introducedBy
            } else {
                issue.status = .new
            }
            marked.append(issue)
        }
        var resolvedSeen: Set<String> = []
        for var issue in open where known.contains(issue.type) && !seen.contains(issue.fingerprint) && resolvedSeen.insert(issue.fingerprint).inserted
        {
            issue.status = .resolved
            marked.append(issue)
        }
        return marked
    }
}
