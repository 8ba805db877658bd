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

import Foundation
import KilnTestSupport
import Testing

@testable import KilnStore

@Suite("A new SQLite store starts from the schema its migrations leave")
struct SQLiteSchemaTests {
    /// What the file holds: its schema in order, and the migrations it records as applied.
    static func contents(_ path: String) async throws -> (schema: [String], migrations: [String]) {
        let store = try SQLiteStore.open(path: path, logsDirectory: nil)
        let schema = try await store.engine.read("reading the schema") { db in
            try db.rows(
                "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations' ORDER BY rowid", []
            )
            .map { row -> String in row["sql"] }
        }
        return (schema, try await store.appliedMigrations())
    }

    @Test("sqlite-schema.sql is what replaying every migration makes: the same tables, columns, indexes and names applied")
    func schemaIsTheReplay() async throws {
        let directory = try TemporaryDirectory()
        let replayed = try await Migrations.$replaying.withValue(true) { try await Self.contents(directory.url("replayed.sqlite")) }
        let started = try await Self.contents(directory.url("new.sqlite"))
        #expect(started.migrations == replayed.migrations)
        #expect(replayed.migrations.count == History.sqlite.count + Migrations.shared.count)
        let file = replayed.schema.map { $0 + ";" }.joined(separator: "\n")
        #expect(
            started.schema == replayed.schema,
            "Sources/KilnStore/Schema/sqlite-schema.sql is not what the migrations make: replace its statements (after the comments) with:\n\(file)")
    }
}
