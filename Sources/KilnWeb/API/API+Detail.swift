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
import KilnCore
import KilnPresentation

extension API {
    /// `GET /api/bots/{bot}/integrations/{n}`: an integration with `steps`, `commits`, `issues`, `tests`.
    public struct IntegrationDetail: Encodable, Sendable {
        public var integration: Integration
        public var steps: [Step]
        public var commits: [Commit]
        public var issues: [Issue]
        public var tests: [Test]
        public var assets: [AssetLink]
        public var cells: [CellResult]
        /// The dependencies its package pinned: `{identity, location, version, revision, mirror}`,
        /// `mirror` being `current`, `fetched` or `unavailable`.
        public var dependencies: [DependencyPin]

        public init(_ detail: KilnCore.IntegrationDetail) {
            dependencies = detail.dependencies
            cells = detail.cells.map(CellResult.init)
            integration = Integration(detail.integration)
            steps = detail.steps.map { Step(name: $0.name, startedAt: $0.startedAt, duration: $0.duration) }
            commits = detail.commits.map { Commit(sha: $0.sha, author: $0.author, email: $0.email, date: $0.date, subject: $0.subject) }
            issues = detail.issues.map {
                Issue(
                    type: $0.type, message: $0.message, file: $0.file, line: $0.line, status: $0.status,
                    introducedBy: $0.introducedBy.map { Committer(name: $0.name, email: $0.email, commit: $0.commit, bisected: $0.bisected) },
                    cells: $0.cells, check: $0.check)
            }
            let (bot, number) = (detail.integration.bot, detail.integration.number)
            assets = detail.assets.map {
                AssetLink(name: $0.name, size: $0.size, sha256: $0.sha256, url: AssetController.path(bot: bot, number: number, name: $0.name))
            }
            tests = detail.tests.map {
                Test(
                    suite: $0.suite, name: $0.name, status: $0.status, duration: $0.duration, quarantined: $0.quarantined,
                    measurement: $0.measurement.map(Measurement.init), cell: $0.cell)
            }
        }

        enum CodingKeys: String, CodingKey { case steps, commits, issues, tests, assets, cells, dependencies }

        public func encode(to encoder: any Encoder) throws {
            try integration.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(steps, forKey: .steps)
            try container.encode(commits, forKey: .commits)
            try container.encode(issues, forKey: .issues)
            try container.encode(tests, forKey: .tests)
            try container.encode(assets, forKey: .assets)
            if !cells.isEmpty { try container.encode(cells, forKey: .cells) }
            try container.encode(dependencies, forKey: .dependencies)
        }
    }

    /// One cell of a matrix: `{name, toolchain, swiftVersion, configuration, sanitizer, host,
    /// result, reason, startedAt, endedAt, duration, summary, log}`.
    public struct CellResult: Encodable, Sendable {
        public var name: String
        public var toolchain: String
        @Nullable public var swiftVersion: String?
        @Nullable public var configuration: BuildConfiguration?
        @Nullable public var sanitizer: Sanitizer?
        @Nullable public var host: String?
        public var step: IntegrationStep
        @Nullable public var result: IntegrationResult?
        /// Why it ended as it did; for a cell that could not run, why (no live host has its toolchain).
        @Nullable public var reason: Reason?
        @Nullable public var startedAt: Date?
        @Nullable public var endedAt: Date?
        @Nullable public var duration: Double?
        @Nullable public var summary: Summary?
        /// Where its log is.
        public var log: String
        /// Where its workspace came from (as an integration's `workspace`).
        @Nullable public var workspace: Workspace?

        init(_ cell: KilnCore.Integration) {
            name = cell.cell?.name ?? ""
            let values = Cell(name: name)
            toolchain = cell.toolchain ?? values?.toolchain ?? Matrix.defaultToolchain
            swiftVersion = cell.swiftVersion
            configuration = values?.configuration
            sanitizer = values?.sanitizer
            host = cell.host
            step = cell.step
            result = cell.result
            reason = cell.reason.map(Reason.init)
            startedAt = cell.startedAt
            endedAt = cell.endedAt
            duration = cell.duration
            summary = cell.summary
            log = "/bots/\(cell.bot)/integrations/\(cell.shownNumber)/log?cell=\(name)"
            workspace = cell.workspace.map(Workspace.init)
        }
    }

    /// An asset the integration kept (its archive), and where to download it.
    public struct AssetLink: Encodable, Sendable {
        public var name: String
        public var size: Int
        public var sha256: String
        public var url: String
    }

    public struct Step: Encodable, Sendable {
        public var name: IntegrationStep
        public var startedAt: Date
        @Nullable public var duration: Double?
    }

    public struct Commit: Encodable, Sendable {
        public var sha: String
        public var author: String
        public var email: String
        public var date: Date
        public var subject: String
    }

    public struct Issue: Encodable, Sendable {
        public var type: IssueType
        public var message: String
        @Nullable public var file: String?
        @Nullable public var line: Int?
        public var status: IssueStatus
        public var introducedBy: [Committer]
        /// For a bot with a `matrix`: the cells it was found in.
        public var cells: [String]
        /// The check of the `analyze` step that found an analyzer warning; null for other kinds.
        @Nullable public var check: AnalyzerCheck?
    }

    public struct Committer: Encodable, Sendable {
        public var name: String
        public var email: String
        public var commit: String
        /// Found by bisection, not by blame.
        public var bisected: Bool
    }

    public struct Test: Encodable, Sendable {
        public var suite: String
        public var name: String
        public var status: TestStatus
        public var duration: Double
        /// It ran under `test.quarantine`: a failure fails nothing.
        public var quarantined: Bool
        /// What its `measure {}` measured; null for a test that measures nothing.
        @Nullable public var measurement: Measurement?
        /// For a bot with a `matrix`: the cell it ran in; null otherwise.
        @Nullable public var cell: String?
    }

    /// A test's measurement: `values` and their `median` in their `unit` (`seconds`; `count` for
    /// a package-benchmark counter, whose values are its percentiles p0, p5 … p90, p99, p100),
    /// the `baseline` it was judged against (the median of the same host's latest measurements;
    /// null when there was none) and the `change` against it (a fraction: 0.38 is 38 % slower,
    /// negative is faster).
    public struct Measurement: Encodable, Sendable, Hashable {
        public var values: [Double]
        public var median: Double
        public var unit: String
        @Nullable public var baseline: Double?
        @Nullable public var change: Double?

        init(_ measurement: TestMeasurement) {
            values = measurement.values
            median = measurement.median
            unit = (measurement.unit ?? .seconds).rawValue
            baseline = measurement.baseline
            change = measurement.change
        }
    }

    /// `GET /api/bots/{bot}/tests/{suite}/{name}`: a test's results on the bot's branch, newest
    /// first, with `flaky` (and why) and its `flipRate` (changes of result per chance, or null).
    /// Of a matrix, each result names its `cell`, and `cells` judges each cell on its own
    /// (`{name, flaky, flakyReason, flipRate}`); the top-level `flipRate` is then null, since
    /// the cells' results do not follow one another.
    public struct TestHistory: Encodable, Sendable {
        public struct Cell: Encodable, Sendable {
            public var name: String
            public var flaky: Bool
            @Nullable public var flakyReason: String?
            @Nullable public var flipRate: Double?
        }

        public struct Result: Encodable, Sendable {
            public var integration: Int
            @Nullable public var cell: String?
            @Nullable public var commit: String?
            public var status: TestStatus
            public var duration: Double
            @Nullable public var host: String?
            @Nullable public var endedAt: Date?
            @Nullable public var message: String?
            @Nullable public var measurement: Measurement?
        }

        public var bot: String
        public var suite: String
        public var name: String
        public var flaky: Bool
        @Nullable public var flakyReason: String?
        @Nullable public var flipRate: Double?
        public var cells: [Cell]
        public var results: [Result]

        init(bot: String, _ history: KilnCore.TestHistory) {
            self.bot = bot
            suite = history.suite
            name = history.name
            let cells = Set(history.runs.compactMap(\.test.cell)).sorted().map { cell in
                let judged = history.inCell(cell)
                return Cell(name: cell, flaky: judged.flakiness != nil, flakyReason: judged.flakiness?.sentence, flipRate: judged.flipRate)
            }
            self.cells = cells
            if cells.isEmpty {
                flakyReason = history.flakiness?.sentence
                flipRate = history.flipRate
            } else {
                let reasons = cells.compactMap { cell in cell.flakyReason.map { "\(cell.name): \($0)" } }
                flakyReason = reasons.isEmpty ? nil : reasons.joined(separator: "; ")
                flipRate = nil
            }
            flaky = cells.isEmpty ? history.flakiness != nil : cells.contains(where: \.flaky)
            results = history.runs.map {
                Result(
                    integration: $0.number, cell: $0.test.cell, commit: $0.commit, status: $0.test.status, duration: $0.test.duration, host: $0.host,
                    endedAt: $0.endedAt, message: $0.test.message, measurement: $0.test.measurement.map(Measurement.init))
            }
        }
    }

    /// The body of every error answer: `{"error": "…"}`.
    public struct Failure: Encodable, Sendable {
        public var error: String
    }
}
