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
import Synchronization

/// One row of a result: values by column name.
public struct SQLRow: Sendable {
    /// The columns of a result, shared by its rows, and by every result of the same statement
    /// (`of(_:names:)`): building the index of a wide row costs more than reading it.
    public final class Columns: Sendable {
        let positions: [String: Int]
        let names: [String]

        private static let cache = Mutex<[String: Columns]>([:])

        /// The columns of the statement `sql`, whose names `names` reads when they are not known yet.
        static func of(_ sql: String, names: () -> [String]) -> Columns {
            if let known = cache.withLock({ $0[sql] }) { return known }
            let columns = Columns(names())
            cache.withLock { cache in
                // Statements are written in the code, so there are a few hundred at most; a
                // cache that grew past that is cleared rather than kept growing.
                if cache.count > 2000 { cache.removeAll() }
                cache[sql] = columns
            }
            return columns
        }

        init(_ names: [String]) {
            self.names = names
            // A name repeated by a join reads as its first column, as in GRDB.
            var positions: [String: Int] = [:]
            for (position, name) in names.enumerated() where positions[name] == nil { positions[name] = position }
            self.positions = positions
        }
    }

    let columns: Columns
    let values: [SQLValue]

    init(columns: Columns, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The column names, in the result's order.
    public var names: [String] { columns.names }

    /// The raw value of `column`; NULL for a column the result lacks.
    public func value(_ column: String) -> SQLValue {
        columns.positions[column].map { values[$0] } ?? .null
    }

    /// The value of `column`, nil when it is NULL.
    public subscript<T: SQLDecodable>(_ column: String) -> T? {
        T(sqlValue: value(column))
    }

    /// The value of a column that is never NULL in the store's own rows.
    public subscript<T: SQLDecodable>(_ column: String) -> T {
        T(sqlValue: value(column)) ?? T.sqlDefault
    }
}

/// What the store's operations need of a database connection inside one transaction: statements
/// with `?` placeholders, run synchronously. The store's logic is written once against this; each
/// engine (`SQLiteEngine`, `PostgresEngine`) runs it in a transaction of its own kind.
public protocol SQLConnection {
    var dialect: SQLDialect { get }

    /// Runs a statement and returns its rows (`RETURNING` rows for a write).
    func rows(_ sql: String, _ arguments: [any SQLBindable]) throws -> [SQLRow]

    /// Runs a statement for its effect; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [any SQLBindable]) throws -> Int

    /// Says `kind` at commit, to this process and the others, besides the transaction's `notify`.
    func announce(_ kind: ChangeKind) throws
}

extension SQLConnection {
    func rows(_ sql: String, _ arguments: any SQLBindable...) throws -> [SQLRow] {
        try rows(sql, arguments)
    }

    func row(_ sql: String, _ arguments: any SQLBindable...) throws -> SQLRow? {
        try rows(sql, arguments).first
    }

    /// The first column of the first row; nil when there is no row or it is NULL.
    func value<T: SQLDecodable>(_ sql: String, _ arguments: any SQLBindable...) throws -> T? {
        guard let row = try rows(sql, arguments).first, let first = row.values.first else { return nil }
        return T(sqlValue: first)
    }

    @discardableResult
    func execute(_ sql: String, _ arguments: any SQLBindable...) throws -> Int {
        try execute(sql, arguments)
    }
}

/// `?, ?, ?` for a list of `count` values, as in `IN (…)`.
func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}

/// `(?, ?, ?), (?, ?, ?)`: `count` rows of `width` values each, for a multi-row `VALUES`.
func placeholders(rows count: Int, of width: Int) -> String {
    Array(repeating: "(\(placeholders(width)))", count: count).joined(separator: ", ")
}

/// The few words in which the engines' SQL differs. Everything else the store says is the SQL
/// both understand (SQLite 3.39 or later, PostgreSQL 13 or later).
public enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// The database's clock, in seconds since 1970: what leases and heartbeats are measured on,
    /// so that a host whose own clock is wrong is judged like any other.
    var now: String {
        switch self {
        case .sqlite: "((julianday('now') - 2440587.5) * 86400.0)"
        case .postgres: "extract(epoch FROM now())::double precision"
        }
    }

    /// Locks the rows a query selected (of `tables`, when given) until the transaction ends,
    /// skipping rows another transaction holds. SQLite's write transactions hold the whole file,
    /// so it needs none.
    func lockSkippingLocked(of tables: String? = nil) -> String {
        switch self {
        case .sqlite: ""
        case .postgres: Self.rowLock + (tables.map { " OF \($0)" } ?? "") + " SKIP LOCKED"
        }
    }

    /// Locks the rows a query selected (of `tables`, when given) until the transaction ends,
    /// waiting for them.
    func lock(of tables: String? = nil) -> String {
        switch self {
        case .sqlite: ""
        case .postgres: Self.rowLock + (tables.map { " OF \($0)" } ?? "")
        }
    }

    /// The lock an UPDATE takes, which excludes every other writer and locker of the row but
    /// not the foreign-key checks of rows that reference it. `FOR UPDATE` excludes those too,
    /// and deadlocked: a push locked a bot's row, then waited for its running integration's
    /// row, while that integration's completion, updating its row a second time (which checks
    /// its foreign key to the bot again), waited for the bot's row. Kiln never deletes a row
    /// nor changes a key that another row references.
    private static let rowLock = " FOR NO KEY UPDATE"
}

/// Converts what a row's JSON column holds.
enum JSON {
    static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String?, default value: T) -> T {
        guard let text, let decoded = try? JSONDecoder().decode(type, from: Data(text.utf8)) else { return value }
        return decoded
    }
}
