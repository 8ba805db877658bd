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

/// What a pull request's integration asks of the review outbox (`forge.review`): where its
/// findings may go (the lines it changed), and where to post them.
public struct ReviewRequest: Sendable, Hashable, Codable {
    public var forge: ForgeKind
    public var apiURL: String
    public var tokenFile: String
    /// The repository as the forge's API names it (`ForgeSettings.project(of:)`).
    public var project: String
    public var pullRequest: Int
    /// The head commit integrated.
    public var head: String
    public var changed: ChangedLines
    /// The integration's page, which comments link to.
    public var url: String?
    /// At most this many line comments per push (`forge.review-limit`).
    public var limit: Int
    /// With coverage measured: how much of the change its tests ran, which the summary says.
    public var patch: PatchCoverage?
    /// `coverage.comments`: each run of uncovered changed lines is a line comment too (nil in a
    /// review queued before the key existed: the summary only).
    public var commentsUncovered: Bool?

    public init(
        forge: ForgeKind, apiURL: String, tokenFile: String, project: String, pullRequest: Int, head: String, changed: ChangedLines, url: String?,
        limit: Int
    ) {
        self.forge = forge
        self.apiURL = apiURL
        self.tokenFile = tokenFile
        self.project = project
        self.pullRequest = pullRequest
        self.head = head
        self.changed = changed
        self.url = url
        self.limit = limit
    }
}

/// One finding as a review shows it.
public struct ReviewFinding: Sendable, Hashable, Codable {
    public var fingerprint: String
    public var type: IssueType
    public var check: AnalyzerCheck?
    public var message: String
    public var file: String?
    public var line: Int?
    public var cells: [String]
    /// For a run of changed lines no test ran (`coverage.comments`): its lines, the first being
    /// `line`. Nil for an issue.
    public var uncovered: ClosedRange<Int>?

    public init(_ issue: IntegrationIssue) {
        fingerprint = issue.fingerprint
        type = issue.type
        check = issue.check
        message = issue.message
        file = issue.file
        line = issue.line
        cells = issue.cells
    }

    /// The run `lines` of `file`'s changed lines that no test ran. Its fingerprint names the run,
    /// so a comment stays while the same lines stay uncovered and is resolved when a test runs them
    /// (or they move).
    public init(uncovered lines: ClosedRange<Int>, in file: String) {
        fingerprint = "coverage|\(file)|\(lines.lowerBound)-\(lines.upperBound)"
        type = .warning
        message = ""
        self.file = file
        line = lines.lowerBound
        cells = []
        uncovered = lines
    }
}

/// A pull request integration's review, composed once when it completes and kept in the
/// outbox until the forge has it: the findings the pull request adds (new against its base), on
/// its changed lines or not, and the fingerprints still open (a comment on any other is resolved).
public struct ReviewDraft: Sendable, Hashable, Codable {
    public var request: ReviewRequest
    public var bot: String
    public var number: Int
    /// New against the base and on a changed line, in the integration's order.
    public var onLines: [ReviewFinding]
    /// New against the base, elsewhere.
    public var elsewhere: [ReviewFinding]
    /// Every issue still open in this integration.
    public var open: Set<String>

    /// The draft of `request` for an integration whose issues, marked against the base, are `issues`.
    public static func compose(_ request: ReviewRequest, bot: String, number: Int, issues: [IntegrationIssue]) -> ReviewDraft {
        let added = issues.filter { $0.status == .new }
        let onLines = added.filter { issue in
            guard let file = issue.file, let line = issue.line else { return false }
            return request.changed.contains(file: file, line: line)
        }
        let placed = Set(onLines.map(\.fingerprint))
        // After the issues: a finding outranks a line no test ran for the comment limit.
        let uncovered =
            request.commentsUncovered == true
            ? (request.patch?.files ?? []).flatMap { file in PatchCoverage.runs(file.uncovered).map { ReviewFinding(uncovered: $0, in: file.path) } }
            : []
        return ReviewDraft(
            request: request, bot: bot, number: number, onLines: onLines.map(ReviewFinding.init) + uncovered,
            elsewhere: added.filter { !placed.contains($0.fingerprint) }.map(ReviewFinding.init),
            open: Set(issues.filter { $0.status != .resolved }.map(\.fingerprint)).union(uncovered.map(\.fingerprint)))
    }
}

/// A comment Kiln left on a pull request, as the forge knows it.
public struct ReviewComment: Sendable, Hashable, Codable {
    public var fingerprint: String
    /// The forge's id of the comment (GitHub's and Gitea's comment, GitLab's note).
    public var id: String
    /// GitLab's discussion, which is what is resolved there.
    public var discussion: String?
    public var body: String
    /// The commit in which its finding went away; nil while it is open.
    public var resolvedIn: String?

    public init(fingerprint: String, id: String, discussion: String? = nil, body: String, resolvedIn: String? = nil) {
        self.fingerprint = fingerprint
        self.id = id
        self.discussion = discussion
        self.body = body
        self.resolvedIn = resolvedIn
    }

    /// The fingerprint under which a pull request's summary comment is kept.
    public static let summary = "summary"
}

/// What one delivery does, given the comments already on the pull request: comment the new
/// findings on lines not commented before (or whose comment was resolved since), up to the
/// limit; resolve the comments whose findings are gone; and say the rest in the summary.
public struct ReviewPlan: Sendable, Hashable {
    public var comment: [ReviewFinding]
    public var resolve: [ReviewComment]
    /// The findings of the summary: elsewhere, and over the limit.
    public var summarized: [ReviewFinding]

    public init(_ draft: ReviewDraft, commented: [ReviewComment]) {
        // A finding that came back after its comment was resolved is commented again.
        let known = Set(commented.filter { $0.resolvedIn == nil }.map(\.fingerprint))
        let fresh = draft.onLines.filter { !known.contains($0.fingerprint) }
        comment = Array(fresh.prefix(draft.request.limit))
        summarized = draft.elsewhere + fresh.dropFirst(draft.request.limit)
        resolve = commented.filter { $0.fingerprint != ReviewComment.summary && $0.resolvedIn == nil && !draft.open.contains($0.fingerprint) }
    }
}
