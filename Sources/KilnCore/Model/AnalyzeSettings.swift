/// `analyze`: the static analysis an integration runs after its tests, whose findings are
/// `analyzer-warning` issues.
public struct AnalyzeSettings: Sendable, Hashable {
    /// What a public API that breaks is.
    public enum APIBreakage: String, Sendable, Hashable {
        /// Not checked.
        case off
        /// An analyzer warning.
        case warning
        /// An error, as a compiler error is: the result is `build-errors`.
        case error
    }

    /// `swift format lint` of the whole package, with the repository's `.swift-format` when it has one.
    public var lint: Bool
    /// `swift package diagnose-api-breaking-changes` against the baseline: the previous
    /// integration's commit, or a pull request's base.
    public var apiBreakage: APIBreakage

    public init(lint: Bool = false, apiBreakage: APIBreakage = .off) {
        self.lint = lint
        self.apiBreakage = apiBreakage
    }

    /// Whether any analysis runs.
    public var enabled: Bool { lint || apiBreakage != .off }
}
