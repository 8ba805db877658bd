/// A kind of issue. Each kind carries everything the rest of Kiln says or decides about it (its
/// names, its noun, the result it gives an integration, whether it is always counted), so that
/// summaries, pages, mails, commit statuses and `kiln run` iterate over kinds instead of naming
/// them. Adding a kind is its case here, its producer, and nothing else.
public enum IssueType: String, CaseIterable, Codable, Sendable, Hashable {
    case error
    case warning
    case testFailure = "test-failure"
    /// A finding of the `analyze` step (`swift format lint`, an API break).
    case analyzerWarning = "analyzer-warning"
    /// A measurement (`measure {}`) slower than its baseline on the same host.
    case performanceRegression = "performance-regression"
    /// A Thread, Address or Undefined Behavior Sanitizer's report (a data race, a heap overflow).
    case sanitizer

    /// What is said of one kind; the one table that lists them.
    struct Words {
        /// Bot files' plural (`issues: [errors, warnings, test-failures]`).
        var plural: String
        /// Its count's name in the API's `summary` (`errors`, `testFailures`).
        var summaryKey: String
        /// One of them, in English: `error`, `test failure`.
        var noun: String
        /// In a commit status: `new error`, or for a kind that counts while it is open, what the
        /// tests are (`failing`).
        var status: StatusWords
        /// The result an integration with an issue of this kind has at best.
        var result: IntegrationResult
        /// Counted on every page and mail even at zero; the others are shown when present.
        var alwaysCounted: Bool
        /// A new issue of this kind is one a bisection looks for: something broke, not a warning.
        var breaks: Bool
        /// Counted from the failed tests (quarantined ones too) and written "of N tests".
        var countsTests = false
    }

    /// How a commit status counts a kind: its new issues (`2 new warnings`), or, for kinds that
    /// stay a problem while open, its open ones as tests in a state (`1 test failing`).
    public enum StatusWords: Sendable, Hashable {
        case new(String)
        case openTests(String)
    }

    var words: Words {
        switch self {
        case .error:
            Words(
                plural: "errors", summaryKey: "errors", noun: "error", status: .new("new error"), result: .buildErrors, alwaysCounted: true,
                breaks: true)
        case .warning:
            Words(
                plural: "warnings", summaryKey: "warnings", noun: "warning", status: .new("new warning"), result: .warnings, alwaysCounted: true,
                breaks: false)
        case .testFailure:
            Words(
                plural: "test-failures", summaryKey: "testFailures", noun: "test failure", status: .openTests("failing"), result: .testFailures,
                alwaysCounted: true, breaks: true, countsTests: true)
        case .analyzerWarning:
            Words(
                plural: "analyzer-warnings", summaryKey: "analyzerWarnings", noun: "analyzer warning", status: .new("new analyzer warning"),
                result: .analyzerWarnings, alwaysCounted: false, breaks: false)
        case .performanceRegression:
            Words(
                plural: "performance-regressions", summaryKey: "performanceRegressions", noun: "performance regression",
                status: .openTests("slower"), result: .testFailures, alwaysCounted: false, breaks: true)
        case .sanitizer:
            Words(
                plural: "sanitizer-reports", summaryKey: "sanitizerReports", noun: "sanitizer report", status: .new("new sanitizer report"),
                result: .testFailures, alwaysCounted: false, breaks: true)
        }
    }

    /// The plural spelling used in bot files (`issues: [errors, warnings, test-failures]`).
    public var pluralName: String { words.plural }

    /// Its count's name in the API's `summary` (`errors`, `testFailures`).
    public var summaryKey: String { words.summaryKey }

    /// One issue of this kind in English (`test failure`), for counts: `CountText.of(2, noun)`.
    public var noun: String { words.noun }

    /// How commit statuses count it.
    public var statusWords: StatusWords { words.status }

    /// The result an integration with an issue of this kind has at best (a performance
    /// regression's may be lowered to `warnings` by `performance.regressions`).
    public var result: IntegrationResult { words.result }

    /// Counted even at zero (errors, warnings, test failures); the others only when present.
    public var alwaysCounted: Bool { words.alwaysCounted }

    /// Whether a new issue of this kind is a breakage a bisection looks for.
    public var breaks: Bool { words.breaks }

    /// Counted from the failed tests, quarantined ones too, and written "1 test failure of 5 tests".
    public var countsTests: Bool { words.countsTests }

    /// The kinds counted even at zero, in order: the columns of the pages' tables.
    public static let counted = allCases.filter(\.alwaysCounted)

    public init?(pluralName: String) {
        guard let type = Self.allCases.first(where: { $0.pluralName == pluralName }) else { return nil }
        self = type
    }
}
