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

/// One part of a testing step run in shards (`test.shards`): which part, where it ran, how many
/// tests and for how long (JSON `shards`).
public struct ShardRun: Sendable, Hashable, Codable {
    /// Its place among the parts, from 1.
    public var index: Int
    /// The host whose executor ran it.
    public var host: String
    /// How many tests it was given.
    public var tests: Int
    /// Seconds from its process's start to its end, Kiln's own part included.
    public var duration: Double
    /// Which built workspace it ran in.
    public var workspace: Workspace

    public enum Workspace: String, Sendable, Hashable, Codable {
        /// The integration's own, where its build ran: no second build.
        case integration
        /// Another host's, from a pack of the integration's built workspace: no second build.
        case snapshot
    }

    public init(index: Int, host: String, tests: Int, duration: Double, workspace: Workspace = .integration) {
        self.index = index
        self.host = host
        self.tests = tests
        self.duration = duration
        self.workspace = workspace
    }
}
