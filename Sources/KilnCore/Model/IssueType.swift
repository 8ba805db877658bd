/// The kinds of issue an integration can report.
public enum IssueType: String, CaseIterable, Codable, Sendable, Hashable {
    case error
    case warning
    case testFailure = "test-failure"
    /// A finding of the `analyze` step (`swift format lint`).
    case analyzerWarning = "analyzer-warning"
    /// A measurement (`measure {}`) slower than its baseline on the same host.
    case performanceRegression = "performance-regression"

    /// The plural spelling used in bot files (`issues: [errors, warnings, test-failures]`).
    public var pluralName: String {
        switch self {
        case .error: "errors"
        case .warning: "warnings"
        case .testFailure: "test-failures"
        case .analyzerWarning: "analyzer-warnings"
        case .performanceRegression: "performance-regressions"
        }
    }

    /// Its count's name in the API's `summary` (`errors`, `testFailures`).
    public var summaryKey: String {
        switch self {
        case .error: "errors"
        case .warning: "warnings"
        case .testFailure: "testFailures"
        case .analyzerWarning: "analyzerWarnings"
        case .performanceRegression: "performanceRegressions"
        }
    }

    public init?(pluralName: String) {
        guard let type = Self.allCases.first(where: { $0.pluralName == pluralName }) else { return nil }
        self = type
    }
}
