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

/// One numbered run of a bot, as the store holds it.
public struct Integration: Sendable, Hashable {
    /// The store's key; the public identity is `bot` and `number`.
    public var id: Int64
    public var bot: String
    /// 1, 2, 3… per bot, never reused.
    public var number: Int
    public var cause: IntegrationCause
    /// The commit to integrate; nil until known (a manual trigger integrates the branch head).
    public var commit: String?
    public var branch: String
    public var step: IntegrationStep
    /// Nil until completed.
    public var result: IntegrationResult?
    public var queuedAt: Date
    public var startedAt: Date?
    public var endedAt: Date?
    /// Nil until completed.
    public var summary: Summary?
    /// Why it ended as it did, for internal errors, cancellations and timeouts.
    public var reason: IntegrationReason?
    /// Retention removed its log, issues and tests; the summary stays.
    public var expired: Bool
    /// The host that claimed it (`host:` in kiln.yml); nil while queued.
    public var host: String?
    /// The process that claimed it (`ProcessOwner`): how a later process tells whether it is gone.
    public var owner: String?
    /// The pull request it integrates; nil for an integration of the branch.
    public var pullRequest: PullRequest?
    /// The bisection it is a step of (cause `bisect`); nil for the branch's and pull requests'.
    public var bisectionID: Int64?
    /// For a bisect integration once claimed, which of its bot's workspaces it runs in
    /// (`DataDirectory.workspace(of:slot:)`): 0 is the bot's own, the others let a bisection
    /// integrate several commits at once.
    public var workspaceSlot: Int?
    /// For a cell of a matrix: the number of the integration it is a cell of. A cell's own
    /// `number` is below zero and shown nowhere; people know it by that integration's number
    /// and its `cell` name.
    public var cellOf: Int?
    /// For a cell of a matrix: which (its name, `Cell.name`, is `default-release-none`).
    public var cell: Cell?
    /// For a cell: the toolchain it runs with (`Matrix.defaultToolchain`, or a host's `toolchains:` name).
    public var toolchain: String?
    /// For a cell once it ran: the first line of its compiler's `swift --version`.
    public var swiftVersion: String?
    /// Where its workspace came from, once it had one (`cache`).
    public var workspace: WorkspaceOrigin?
    /// For a re-run (cause `rerun`): the integration it runs again, and how much of it.
    public var rerunOf: Rerun?
    /// Its commit's subject and author, once it has ended having learned them.
    public var subject: String?
    public var author: String?
    /// While its tests run: what they have shown so far; nil before then.
    public var progress: TestProgress?
    /// Its tests' parts, when they ran in shards (`test.shards`); empty otherwise.
    public var shards: [ShardRun] = []
    /// For a fork's pull request that waited for approval: who approved it (a token's name, or
    /// the author, a member as the forge says); nil otherwise.
    public var approvedBy: String?
    /// With coverage measured and a change to measure: how much of it the tests ran.
    public var patchCoverage: PatchCoverage?

    public init(
        id: Int64, bot: String, number: Int, cause: IntegrationCause, commit: String?, branch: String, step: IntegrationStep = .pending,
        result: IntegrationResult? = nil, queuedAt: Date, startedAt: Date? = nil, endedAt: Date? = nil, summary: Summary? = nil,
        reason: IntegrationReason? = nil, expired: Bool = false, host: String? = nil, owner: String? = nil, pullRequest: PullRequest? = nil,
        bisectionID: Int64? = nil, workspaceSlot: Int? = nil, cellOf: Int? = nil, cell: Cell? = nil, toolchain: String? = nil,
        swiftVersion: String? = nil, workspace: WorkspaceOrigin? = nil, rerunOf: Rerun? = nil
    ) {
        self.id = id
        self.bot = bot
        self.number = number
        self.cause = cause
        self.commit = commit
        self.branch = branch
        self.step = step
        self.result = result
        self.queuedAt = queuedAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.summary = summary
        self.reason = reason
        self.expired = expired
        self.host = host
        self.owner = owner
        self.pullRequest = pullRequest
        self.bisectionID = bisectionID
        self.workspaceSlot = workspaceSlot
        self.cellOf = cellOf
        self.cell = cell
        self.toolchain = toolchain
        self.swiftVersion = swiftVersion
        self.workspace = workspace
        self.rerunOf = rerunOf
    }

    /// The number people know it by: its own, or for a cell its integration's.
    public var shownNumber: Int { cellOf ?? number }

    /// Seconds from start to end; nil until it has both.
    public var duration: TimeInterval? {
        guard let startedAt, let endedAt else { return nil }
        return endedAt.timeIntervalSince(startedAt)
    }

    public var isRunning: Bool { !isQueued && step != .completed }

    /// Queued: waiting for an executor, or first for a member's approval.
    public var isQueued: Bool { step == .pending || step == .awaitingApproval }
}

/// The counts of a completed integration, each with its change against the previous completed
/// integration of the same bot (nil when there is none, or the figure is unknown on either side).
///
/// Issue counts are kept by kind (`issues`, `issueChanges`): a new kind of issue needs no new
/// field here, nor a column in the store. Its JSON is the API's `summary`: each kind's count under
/// its `summaryKey` (`errors`, `warnings`, `testFailures`), then `tests` and `coverage`, each with
/// its `…Change`, absent figures as `null`.
public struct Summary: Sendable, Hashable, Encodable {
    /// Issues of each kind; a kind absent counts 0.
    public var issues: [IssueType: Int]
    /// The change of each kind's count; empty when there is nothing to compare with.
    public var issueChanges: [IssueType: Int]
    public var tests: Int
    /// Percent of the package's own lines covered; nil when coverage was not measured.
    public var coverage: Double?
    public var testsChange: Int?
    public var coverageChange: Double?

    public init(
        issues: [IssueType: Int] = [:], tests: Int = 0, coverage: Double? = nil, issueChanges: [IssueType: Int] = [:], testsChange: Int? = nil,
        coverageChange: Double? = nil
    ) {
        self.issues = issues.filter { $0.value != 0 }
        self.tests = tests
        self.coverage = coverage
        self.issueChanges = issueChanges
        self.testsChange = testsChange
        self.coverageChange = coverageChange
    }

    /// How many issues of `kind`.
    public subscript(kind: IssueType) -> Int {
        issues[kind] ?? 0
    }

    /// The change in issues of `kind`; nil when there is nothing to compare with.
    public func change(_ kind: IssueType) -> Int? {
        issueChanges.isEmpty ? nil : issueChanges[kind] ?? 0
    }

    /// This summary with its changes computed against `previous`.
    public func changed(from previous: Summary?) -> Summary {
        var summary = self
        guard let previous else { return summary }
        summary.issueChanges = Dictionary(uniqueKeysWithValues: IssueType.allCases.map { ($0, self[$0] - previous[$0]) })
        summary.testsChange = tests - previous.tests
        if let coverage, let before = previous.coverage { summary.coverageChange = coverage - before }
        return summary
    }

    private struct Key: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for kind in IssueType.allCases {
            try container.encode(self[kind], forKey: Key(kind.summaryKey))
            try container.encode(Nullable(wrappedValue: change(kind)), forKey: Key(kind.summaryKey + "Change"))
        }
        try container.encode(tests, forKey: Key("tests"))
        try container.encode(Nullable(wrappedValue: testsChange), forKey: Key("testsChange"))
        try container.encode(Nullable(wrappedValue: coverage), forKey: Key("coverage"))
        try container.encode(Nullable(wrappedValue: coverageChange), forKey: Key("coverageChange"))
    }
}

/// One step an integration went through, and how long it took.
public struct StepTiming: Sendable, Hashable {
    public var name: IntegrationStep
    public var startedAt: Date
    /// Nil while the step runs.
    public var duration: TimeInterval?

    public init(name: IntegrationStep, startedAt: Date, duration: TimeInterval? = nil) {
        self.name = name
        self.startedAt = startedAt
        self.duration = duration
    }
}
