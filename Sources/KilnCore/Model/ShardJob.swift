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

/// A part of a sharded testing step (`test.shards`) that the integration's host offers to the
/// other hosts of its database: which tests, and the built workspace they run in, packed on
/// the offering host (`snapshot`, fetched as a warm workspace's snapshot is). A host with an
/// idle executor claims it, checks the commit out, unpacks the pack, runs the part with the
/// built test binary and records its outcome; the offering host merges it with its own parts.
public struct ShardJob: Sendable, Hashable, Codable {
    /// The integration (or matrix cell) whose testing step it is part of.
    public var integrationID: Int64
    public var bot: String
    /// The integration's number as shown (a cell's is its integration's).
    public var number: Int
    /// Its place among the parts, from 1, and how many parts there are.
    public var part: Int
    public var parts: Int
    /// The tests to run, as `swift test list` named them.
    public var tests: [TestCase]
    /// The built workspace: its commit, the host that serves the pack, its checks.
    public var snapshot: WorkspaceSnapshot
    /// A pull request's ref, which fetches its commit into a mirror that lacks it.
    public var pullRef: String?

    public init(
        integrationID: Int64, bot: String, number: Int, part: Int, parts: Int, tests: [TestCase], snapshot: WorkspaceSnapshot,
        pullRef: String? = nil
    ) {
        self.integrationID = integrationID
        self.bot = bot
        self.number = number
        self.part = part
        self.parts = parts
        self.tests = tests
        self.snapshot = snapshot
        self.pullRef = pullRef
    }
}

/// What a shard's run found: every test's result, how its process ended when that was not a
/// success, and where and how long it ran.
public struct ShardOutcome: Sendable, Hashable, Codable {
    public var tests: [TestCase]
    /// How the part's process ended when it was not a success (a crash, a signal); nil when it
    /// exited as `swift test` does, its failures being in `tests`.
    public var failure: String?
    public var run: ShardRun
    /// Where its workspace came from, for the integration's log ("from build-1's pack, 12.3 MiB
    /// in 0.3 s").
    public var note: String?

    public init(tests: [TestCase], failure: String? = nil, run: ShardRun, note: String? = nil) {
        self.tests = tests
        self.failure = failure
        self.run = run
        self.note = note
    }
}

/// A shard as the store has it: the job, who holds it, how often it was claimed, what it found.
public struct ShardState: Sendable, Hashable {
    public var job: ShardJob
    /// The host that claimed it last; nil while nobody has.
    public var claimedBy: String?
    /// How many times it was claimed: more than once when a host that held it went silent.
    public var attempts: Int
    public var outcome: ShardOutcome?

    public init(job: ShardJob, claimedBy: String?, attempts: Int, outcome: ShardOutcome?) {
        self.job = job
        self.claimedBy = claimedBy
        self.attempts = attempts
        self.outcome = outcome
    }
}
