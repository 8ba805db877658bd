/// How Kiln writes a count with its noun: `0 errors`, `1 warning`, `2 tests`. The same on pages,
/// in mail, in statuses and in the terminal.
public enum CountText {
    public static func of(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? Self.plural(of: singular))"
    }

    /// The noun for several: `errors`, `test failures`.
    public static func plural(of singular: String) -> String {
        singular + "s"
    }
}
