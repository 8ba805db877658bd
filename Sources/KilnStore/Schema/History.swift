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

/// The migrations each engine shipped before both shared one schema (`Migrations`): frozen SQL,
/// never edited, kept as SQL files embedded in the binary (`sqlite-history.sql`,
/// `postgres-history.sql`). Every engine applies its own history first, then `Migrations.shared`.
enum History {
    /// v1–v4, as GRDB recorded them (`grdb_migrations`), with v1–v4's camelCase names.
    static let sqlite = parse(PackageResources.sqlite_history_sql)
    /// v1–v3, recorded in `kiln_migration`.
    static let postgres = parse(PackageResources.postgres_history_sql)
    /// What the SQLite history and every shared migration leave, for a new file to start from
    /// (`sqlite-schema.sql`); `SQLiteSchemaTests` keeps it equal to the replay.
    static let sqliteSchema = parse(PackageResources.sqlite_schema_sql).flatMap { $0.statements(.sqlite) }

    /// A history file's migrations: each starts at a `-- migration: NAME` line, and each of its
    /// statements ends with `;` at the end of a line. Other `--` lines are comments. Read as
    /// bytes (the files are ASCII): every command opening the store reads the names.
    static func parse(_ bytes: [UInt8]) -> [Migrations.Migration] {
        let marker = Array("-- migration: ".utf8)
        let (dash, semicolon, newline) = (UInt8(ascii: "-"), UInt8(ascii: ";"), UInt8(ascii: "\n"))
        var migrations: [(name: String, statements: [String])] = []
        var statement: [UInt8] = []
        for line in bytes.split(separator: newline, omittingEmptySubsequences: false) {
            if line.starts(with: marker) {
                migrations.append((String(decoding: line.dropFirst(marker.count), as: UTF8.self), []))
            } else if !line.starts(with: [dash, dash]), !migrations.isEmpty, line.contains(where: { $0 > UInt8(ascii: " ") }) {
                if !statement.isEmpty { statement.append(newline) }
                statement += line
                if line.last == semicolon {
                    migrations[migrations.count - 1].statements.append(String(decoding: statement.dropLast(), as: UTF8.self))
                    statement = []
                }
            }
        }
        return migrations.map { migration in Migrations.Migration(name: migration.name) { _ in migration.statements } }
    }
}
