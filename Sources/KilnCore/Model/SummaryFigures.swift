import Foundation

/// A summary as pages and mails write it: the counts, each change as `+2` or `−1` (nil when
/// nothing changed or there is nothing to compare with, so that a template writes nothing) and
/// coverage as `87.5 %`. The templates read it as `figures`; stored properties only, since
/// Mustache reads them by reflection.
public struct SummaryFigures: Sendable, Hashable {
    public var errors: Int
    public var errorsChange: String?
    public var warnings: Int
    public var warningsChange: String?
    public var tests: Int
    public var testsChange: String?
    public var testFailures: Int
    public var testFailuresChange: String?
    public var analyzerWarnings: Int
    public var analyzerWarningsChange: String?
    public var performanceRegressions: Int
    public var coverage: String?
    /// The counts with their nouns, as English: `0 errors`, `1 warning`, `1 test failure`, `3 tests`.
    public var errorsText: String
    public var warningsText: String
    public var testFailuresText: String
    public var testsText: String
    /// `2 analyzer warnings`; nil when there are none and were none before, so that bots
    /// that do not analyze show nothing.
    public var analyzerWarningsText: String?
    /// `1 performance regression`; nil when there is none.
    public var performanceRegressionsText: String?

    /// The figures of `summary`; all zero when the integration has none (it never built).
    public init(_ summary: Summary?) {
        let summary = summary ?? Summary()
        errors = summary.errors
        errorsChange = Self.change(summary.change(.error))
        warnings = summary.warnings
        warningsChange = Self.change(summary.change(.warning))
        tests = summary.tests
        testsChange = Self.change(summary.testsChange)
        testFailures = summary.testFailures
        testFailuresChange = Self.change(summary.change(.testFailure))
        analyzerWarnings = summary[.analyzerWarning]
        analyzerWarningsChange = Self.change(summary.change(.analyzerWarning))
        coverage = summary.coverageText
        errorsText = CountText.of(errors, "error")
        warningsText = CountText.of(warnings, "warning")
        testFailuresText = CountText.of(testFailures, "test failure")
        testsText = CountText.of(tests, "test")
        performanceRegressions = summary[.performanceRegression]
        performanceRegressionsText = performanceRegressions == 0 ? nil : CountText.of(performanceRegressions, "performance regression")
        analyzerWarningsText = analyzerWarnings == 0 && analyzerWarningsChange == nil ? nil : CountText.of(analyzerWarnings, "analyzer warning")
    }

    static func change(_ value: Int?) -> String? {
        guard let value, value != 0 else { return nil }
        return value > 0 ? "+\(value)" : "−\(-value)"
    }
}
