import Foundation
import KilnCore
import KilnStore

extension API {
    /// `GET /api/bots/{bot}/integrations/{n}`: an integration with `steps`, `commits`, `issues`, `tests`.
    public struct IntegrationDetail: Encodable, Sendable {
        public var integration: Integration
        public var steps: [Step]
        public var commits: [Commit]
        public var issues: [Issue]
        public var tests: [Test]

        public init(_ detail: KilnStore.IntegrationDetail) {
            integration = Integration(detail.integration)
            steps = detail.steps.map { Step(name: $0.name.rawValue, startedAt: $0.startedAt, duration: $0.duration) }
            commits = detail.commits.map { Commit(sha: $0.sha, author: $0.author, email: $0.email, date: $0.date, subject: $0.subject) }
            issues = detail.issues.map {
                Issue(
                    type: $0.type.rawValue, message: $0.message, file: $0.file, line: $0.line, status: $0.status.rawValue,
                    introducedBy: $0.introducedBy.map { Committer(name: $0.name, email: $0.email, commit: $0.commit) })
            }
            tests = detail.tests.map { Test(suite: $0.suite, name: $0.name, status: $0.status.rawValue, duration: $0.duration) }
        }

        enum CodingKeys: String, CodingKey { case steps, commits, issues, tests }

        public func encode(to encoder: any Encoder) throws {
            try integration.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(steps, forKey: .steps)
            try container.encode(commits, forKey: .commits)
            try container.encode(issues, forKey: .issues)
            try container.encode(tests, forKey: .tests)
        }
    }

    public struct Step: Encodable, Sendable {
        public var name: String
        public var startedAt: Date
        public var duration: Double?

        enum CodingKeys: String, CodingKey { case name, startedAt, duration }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(startedAt, forKey: .startedAt)
            try container.encode(duration, forKey: .duration)
        }
    }

    public struct Commit: Encodable, Sendable {
        public var sha: String
        public var author: String
        public var email: String
        public var date: Date
        public var subject: String
    }

    public struct Issue: Encodable, Sendable {
        public var type: String
        public var message: String
        public var file: String?
        public var line: Int?
        public var status: String
        public var introducedBy: [Committer]

        enum CodingKeys: String, CodingKey { case type, message, file, line, status, introducedBy }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(type, forKey: .type)
            try container.encode(message, forKey: .message)
            try container.encode(file, forKey: .file)
            try container.encode(line, forKey: .line)
            try container.encode(status, forKey: .status)
            try container.encode(introducedBy, forKey: .introducedBy)
        }
    }

    public struct Committer: Encodable, Sendable {
        public var name: String
        public var email: String
        public var commit: String
    }

    public struct Test: Encodable, Sendable {
        public var suite: String
        public var name: String
        public var status: String
        public var duration: Double
    }

    /// The body of every error answer: `{"error": "…"}`.
    public struct Failure: Encodable, Sendable {
        public var error: String
    }
}
