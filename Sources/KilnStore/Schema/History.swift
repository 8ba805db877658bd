/// The migrations each engine shipped before both shared one schema (`Migrations`): frozen SQL,
/// never edited, kept as SQL files embedded in the binary (`sqlite-history.sql`,
/// `postgres-history.sql`). Every engine applies its own history first, then `Migrations.shared`.
enum History {
    /// v1–v4, as GRDB recorded them (`grdb_migrations`), with v1–v4's camelCase names.
    static let sqlite = parse(PackageResources.sqlite_history_sql)
    /// v1–v3, recorded in `kiln_migration`.
    static let postgres = parse(PackageResources.postgres_history_sql)

    /// A history file's migrations: each starts at a `-- migration: NAME` line, and each of its
    /// statements ends with `;` at the end of a line. Other `--` lines are comments.
    static func parse(_ bytes: [UInt8]) -> [Migrations.Migration] {
        var migrations: [(name: String, statements: [String])] = []
        var statement = ""
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("-- migration: ") {
                migrations.append((String(line.dropFirst("-- migration: ".count)), []))
            } else if !line.hasPrefix("--"), !migrations.isEmpty, !line.allSatisfy(\.isWhitespace) {
                statement += statement.isEmpty ? line : "\n" + line
                if line.hasSuffix(";") {
                    migrations[migrations.count - 1].statements.append(String(statement.dropLast()))
                    statement = ""
                }
            }
        }
        return migrations.map { migration in Migrations.Migration(name: migration.name) { _ in migration.statements } }
    }
}
