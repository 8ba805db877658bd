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

/// What an integration produced, as its sequencer hands it to the store to be recorded.
public struct IntegrationOutcome: Sendable {
    public var result: IntegrationResult
    public var reason: IntegrationReason?
    public var tests: [TestCase]
    public var coverage: Double?
    /// With coverage on and something to compare with: how much of the change its tests ran.
    public var patchCoverage: PatchCoverage?
    /// Issues found, without status: the store marks them against the previous integration.
    public var issues: [IntegrationIssue]
    public var commits: [Commit]
    public var triggers: [TriggerRun]
    /// When set, new failures that blame could not pin on one of several commits are bisected.
    public var bisect: BisectRequest?
    /// For a cell: the first line of its compiler's `swift --version`.
    public var swiftVersion: String?
    /// For a matrix's integration: the cells whose findings it holds (`merging`).
    public var cells: [String] = []
    /// The dependencies the package pinned, as Kiln's mirrors had them for the build.
    public var dependencies: [DependencyPin] = []
    /// Its tests' parts, when they ran in shards (`test.shards`).
    public var shards: [ShardRun] = []
    /// For a pull request of a bot with `forge.review`: where its review goes.
    public var review: ReviewRequest?

    public init(
        result: IntegrationResult, reason: IntegrationReason? = nil, tests: [TestCase] = [], coverage: Double? = nil,
        issues: [IntegrationIssue] = [], commits: [Commit] = [], triggers: [TriggerRun] = []
    ) {
        self.result = result
        self.reason = reason
        self.tests = tests
        self.coverage = coverage
        self.issues = issues
        self.commits = commits
        self.triggers = triggers
    }

    /// The counts of this outcome, without changes (the store computes those against the previous
    /// integration): its issues by kind, except that a kind counted from the tests counts every
    /// failed test, a quarantined one too (it is no issue: it fails nothing and blames nobody),
    /// once however many matrix cells it failed in.
    public var summary: Summary {
        var counts = Dictionary(issues.map { ($0.type, 1) }, uniquingKeysWith: +)
        let failed = Set(tests.filter { $0.status == .failed }.map(\.key))
        for kind in IssueType.allCases where kind.countsTests { counts[kind] = failed.count }
        return Summary(issues: counts, tests: tests.filter { $0.status != .notRun }.count, coverage: coverage)
    }
}

/// A script trigger that ran.
public struct TriggerRun: Sendable, Hashable {
    public var name: String
    public var phase: TriggerPhase
    public var exitStatus: Int
    public var duration: Double

    public init(name: String, phase: TriggerPhase, exitStatus: Int, duration: Double) {
        self.name = name
        self.phase = phase
        self.exitStatus = exitStatus
        self.duration = duration
    }
}

/// How a bisection started (or continued) by an integration's completion may run.
public struct BisectRequest: Sendable, Hashable {
    /// The most bisect integrations the search may run.
    public var maxIntegrations: Int

    public init(maxIntegrations: Int) {
        self.maxIntegrations = maxIntegrations
    }
}

/// A dependency a package pinned (`Package.resolved`), and how Kiln's mirror had it for the build.
public struct DependencyPin: Sendable, Hashable, Codable {
    public var identity: String
    public var location: String
    /// The version it resolved to, or its branch; nil for a bare revision.
    public var version: String?
    public var revision: String
    public var mirror: MirrorState

    /// What Kiln's mirror did for the build.
    public enum MirrorState: String, Sendable, Hashable, Codable {
        /// It had the revision.
        case current
        /// It fetched the revision from upstream.
        case fetched
        /// It could not have it.
        case unavailable
    }

    public init(identity: String, location: String, version: String?, revision: String, mirror: MirrorState) {
        self.identity = identity
        self.location = location
        self.version = version
        self.revision = revision
        self.mirror = mirror
    }

    /// Every key, `version` as null when there is none (as the API writes absent values).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identity, forKey: .identity)
        try container.encode(location, forKey: .location)
        try container.encode(version, forKey: .version)
        try container.encode(revision, forKey: .revision)
        try container.encode(mirror, forKey: .mirror)
    }
}
