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
import KilnCore
import Logging
import PostgresNIO

/// The shared store: one PostgreSQL database that several `kiln serve` hosts use at once.
public typealias PostgresStore = DatabaseStore<PostgresEngine>

extension DatabaseStore where Engine == PostgresEngine {
    /// Connects to the database of `settings` and migrates it. `connections` is the most the store
    /// holds at once (`database.max-connections` for a server; one for a command).
    public static func open(
        _ settings: DatabaseSettings, connections: Int = 1, logsDirectory: String? = nil, logger: Logger = Logger(label: "kiln.postgres")
    ) async throws(StoreError) -> PostgresStore {
        let location = settings.redactedURL
        var configuration: PostgresConnection.Configuration
        do {
            configuration = try PostgresURL.target(settings).connection()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .unreachable(url: location, reason: error.reason)
        }
        // Each failed connection is an error of the transaction that wanted it; the store says
        // what matters itself.
        var background = logger
        background.logLevel = .error
        // A server names its connections, so that hosts starting together count each other
        // before any has reported (`ConnectionBudget`).
        if connections > ConnectionBudget.beforeShare {
            configuration.options.additionalStartupParameters.append(("application_name", ConnectionBudget.applicationName))
        }
        let engine = PostgresEngine(
            configuration: configuration, connections: max(1, connections), location: location, logsDirectory: logsDirectory, logger: background,
            notices: logger)
        do {
            // Read here: the engine's connections run the migration outside this task.
            let migrations = Migrations.applying(History.postgres)
            try await engine.write("migrating the database", lane: .control, notify: .data, limit: .seconds(300)) { db in
                try migrate(db, migrations)
            }
            // A host (more than one connection) listens for the others' changes; a command does not.
            if connections > 1 { try await engine.checkNotificationsArrive(within: .seconds(5)) }
            // A server takes its share of the database before it serves (until then: two).
            if connections > ConnectionBudget.beforeShare { _ = await engine.takeBudget(keeping: nil) }
        } catch {
            engine.close()
            throw error
        }
        return PostgresStore(engine: engine)
    }

    /// The URL as messages may show it (password redacted).
    public var location: String { engine.location }

    /// Closes the engine's connections; the store cannot be used afterwards.
    public func close() {
        engine.close()
    }

    /// An arbitrary key for `pg_advisory_xact_lock`: Kiln's migrations.
    static let migrationLock: Int64 = 0x6B69_6C6E

    /// Applies what `db` lacks of PostgreSQL's history and the shared migrations, under an
    /// advisory lock, so that several hosts starting at once migrate once.
    static func migrate(_ db: any SQLConnection, _ migrations: [Migrations.Migration]) throws {
        try db.execute("SELECT pg_advisory_xact_lock(?)", migrationLock)
        try db.execute("CREATE TABLE IF NOT EXISTS kiln_migration (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        let applied = Set(try db.rows("SELECT name FROM kiln_migration").map { $0["name"] as String })
        for migration in migrations where !applied.contains(migration.name) {
            for statement in migration.statements(.postgres) { try db.execute(statement) }
            try db.execute("INSERT INTO kiln_migration (name) VALUES (?)", migration.name)
        }
    }

    /// The migrations applied, oldest first.
    public func appliedMigrations() async throws(StoreError) -> [String] {
        // Those applied together share a time: then by version, v9 before v10.
        let order = "applied_at, length(split_part(name, ':', 1)), name"
        return try await read("reading the migrations") { db in try db.rows("SELECT name FROM kiln_migration ORDER BY \(order)").map { $0["name"] } }
    }
}
