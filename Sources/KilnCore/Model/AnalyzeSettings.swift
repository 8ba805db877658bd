/// `analyze`: the static analysis an integration runs after its tests, whose findings are
/// `analyzer-warning` issues.
public struct AnalyzeSettings: Sendable, Hashable {
    /// `swift format lint` of the whole package, with the repository's `.swift-format` when it has one.
    public var lint: Bool

    public init(lint: Bool = false) {
        self.lint = lint
    }

    /// Whether any analysis runs.
    public var enabled: Bool { lint }
}
