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

/// One integration with everything recorded about it.
public struct IntegrationDetail: Sendable, Hashable {
    public var integration: Integration
    public var steps: [StepTiming]
    public var commits: [Commit]
    public var issues: [IntegrationIssue]
    public var tests: [TestCase]
    public var triggers: [TriggerRun]
    /// The files it kept for download (its archive).
    public var assets: [Asset]
    /// For a bot with a `matrix`: its cells, in the matrix's order.
    public var cells: [Integration]
    /// The dependencies its package pinned, as Kiln's mirrors had them.
    public var dependencies: [DependencyPin]

    public init(
        integration: Integration, steps: [StepTiming], commits: [Commit], issues: [IntegrationIssue], tests: [TestCase], triggers: [TriggerRun],
        assets: [Asset] = [], cells: [Integration] = [], dependencies: [DependencyPin] = []
    ) {
        self.cells = cells
        self.dependencies = dependencies
        self.integration = integration
        self.steps = steps
        self.commits = commits
        self.issues = issues
        self.tests = tests
        self.triggers = triggers
        self.assets = assets
    }
}

/// A bot's integration by its public identity.
public struct IntegrationReference: Sendable, Hashable, Codable {
    public var bot: String
    public var number: Int

    public init(bot: String, number: Int) {
        self.bot = bot
        self.number = number
    }
}
