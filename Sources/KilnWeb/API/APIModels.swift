import Foundation
import KilnCore
import KilnStore

/// The JSON of DESIGN.md's API, shared by `GET /api/…` and `kiln status --json` so both print
/// exactly the same thing. Optional fields are written as `null`, never left out.
public enum API {
    /// Encodes API values: camelCase keys in a stable order, ISO 8601 times.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }

    /// A bot: `{name, repository, branch, status, problems, last, running, queued}`.
    public struct Bot: Encodable, Sendable {
        public var name: String
        public var repository: String
        public var branch: String
        /// `idle`, `queued`, `running` or `broken`.
        public var status: String
        public var problems: [String]
        public var last: Integration?
        public var running: Integration?
        public var queued: [Integration]

        public init(_ overview: BotOverview) {
            name = overview.state.name
            repository = overview.state.repository
            branch = overview.state.branch
            problems = overview.state.problems
            last = overview.last.map(Integration.init)
            running = overview.running.first.map(Integration.init)
            queued = overview.queued.map(Integration.init)
            status = !problems.isEmpty ? "broken" : running != nil ? "running" : !queued.isEmpty ? "queued" : "idle"
        }

        enum CodingKeys: String, CodingKey { case name, repository, branch, status, problems, last, running, queued }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(repository, forKey: .repository)
            try container.encode(branch, forKey: .branch)
            try container.encode(status, forKey: .status)
            try container.encode(problems, forKey: .problems)
            try container.encode(last, forKey: .last)
            try container.encode(running, forKey: .running)
            try container.encode(queued, forKey: .queued)
        }
    }

    /// An integration: `{bot, number, cause, commit, step, result, queuedAt, startedAt, endedAt, duration, summary}`.
    public struct Integration: Encodable, Sendable {
        public var bot: String
        public var number: Int
        public var cause: String
        public var commit: String?
        public var step: String
        public var result: String?
        public var queuedAt: Date
        public var startedAt: Date?
        public var endedAt: Date?
        /// Seconds.
        public var duration: Double?
        public var summary: Summary?

        public init(_ integration: KilnCore.Integration) {
            bot = integration.bot
            number = integration.number
            cause = integration.cause.rawValue
            commit = integration.commit
            step = integration.step.rawValue
            result = integration.result?.rawValue
            queuedAt = integration.queuedAt
            startedAt = integration.startedAt
            endedAt = integration.endedAt
            duration = integration.duration
            summary = integration.summary.map(Summary.init)
        }

        enum CodingKeys: String, CodingKey { case bot, number, cause, commit, step, result, queuedAt, startedAt, endedAt, duration, summary }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(bot, forKey: .bot)
            try container.encode(number, forKey: .number)
            try container.encode(cause, forKey: .cause)
            try container.encode(commit, forKey: .commit)
            try container.encode(step, forKey: .step)
            try container.encode(result, forKey: .result)
            try container.encode(queuedAt, forKey: .queuedAt)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(endedAt, forKey: .endedAt)
            try container.encode(duration, forKey: .duration)
            try container.encode(summary, forKey: .summary)
        }
    }

    /// `{errors, warnings, tests, testFailures, coverage}`, each with its `…Change`.
    public struct Summary: Encodable, Sendable {
        public var errors: Int
        public var warnings: Int
        public var tests: Int
        public var testFailures: Int
        public var coverage: Double?
        public var errorsChange: Int?
        public var warningsChange: Int?
        public var testsChange: Int?
        public var testFailuresChange: Int?
        public var coverageChange: Double?

        public init(_ summary: KilnCore.Summary) {
            errors = summary.errors
            warnings = summary.warnings
            tests = summary.tests
            testFailures = summary.testFailures
            coverage = summary.coverage
            errorsChange = summary.errorsChange
            warningsChange = summary.warningsChange
            testsChange = summary.testsChange
            testFailuresChange = summary.testFailuresChange
            coverageChange = summary.coverageChange
        }

        enum CodingKeys: String, CodingKey {
            case errors, warnings, tests, testFailures, coverage, errorsChange, warningsChange, testsChange, testFailuresChange, coverageChange
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(errors, forKey: .errors)
            try container.encode(warnings, forKey: .warnings)
            try container.encode(tests, forKey: .tests)
            try container.encode(testFailures, forKey: .testFailures)
            try container.encode(coverage, forKey: .coverage)
            try container.encode(errorsChange, forKey: .errorsChange)
            try container.encode(warningsChange, forKey: .warningsChange)
            try container.encode(testsChange, forKey: .testsChange)
            try container.encode(testFailuresChange, forKey: .testFailuresChange)
            try container.encode(coverageChange, forKey: .coverageChange)
        }
    }

    /// `GET /api/bots`: the loaded bots, by name.
    public static func bots(from store: some Store) throws(StoreError) -> [Bot] {
        try store.botOverviews().filter(\.loaded).map(Bot.init)
    }
}
