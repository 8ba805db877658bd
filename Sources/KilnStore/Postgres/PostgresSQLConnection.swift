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

import Logging
import NIOCore
import PostgresNIO

/// A leased connection inside one of `PostgresEngine`'s transactions, on a thread of the
/// engine's: each statement waits for its answer. `?` placeholders become `$1`, `$2`, ….
final class PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger
    /// Whether a statement so far may have changed something: anything but a read, or a write
    /// that touched no row. A transaction that changed nothing tells no other host.
    private(set) var changed = false

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    var dialect: SQLDialect { .postgres }

    /// `NOTIFY kiln`, sent by PostgreSQL at commit to every host, this one included.
    func announce(_ kind: ChangeKind) throws {
        try execute("SELECT pg_notify('kiln', ?)", kind.rawValue)
    }

    func rows(_ sql: String, _ arguments: [any SQLBindable]) throws -> [SQLRow] {
        let result = try run(sql, arguments)
        guard let first = result.rows.first else { return [] }
        let columns = SQLRow.Columns.of(sql) { first.map(\.columnName) }
        return result.rows.map { row in SQLRow(columns: columns, values: row.map(Self.value)) }
    }

    func execute(_ sql: String, _ arguments: [any SQLBindable]) throws -> Int {
        try run(sql, arguments).metadata.rows ?? 0
    }

    private func run(_ sql: String, _ arguments: [any SQLBindable]) throws -> PostgresQueryResult {
        let result = try connection.query(Self.query(sql, arguments), logger: logger).wait()
        switch result.metadata.command {
        case "SELECT": break
        case "INSERT", "UPDATE", "DELETE": if result.metadata.rows != 0 { changed = true }
        default: changed = true
        }
        return result
    }

    static func query(_ sql: String, _ arguments: [any SQLBindable]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument.sqlValue {
            case .null: bindings.appendNull()
            case .integer(let value): bindings.append(value)
            case .real(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(bytes: value))
            case .bool(let value): bindings.append(value)
            }
        }
        return PostgresQuery(unsafeSQL: numbered(sql), binds: bindings)
    }

    /// `?` → `$1`, `$2`, … outside string literals.
    static func numbered(_ sql: String) -> String {
        var result = ""
        result.reserveCapacity(sql.utf8.count + 16)
        var inLiteral = false
        var number = 0
        for character in sql {
            if character == "'" { inLiteral.toggle() }
            if character == "?" && !inLiteral {
                number += 1
                result += "$\(number)"
            } else {
                result.append(character)
            }
        }
        return result
    }

    static func value(_ cell: PostgresCell) -> SQLValue {
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
            case .float4, .float8: return .real(try cell.decode(Double.self))
            case .numeric: return .real(Double(try cell.decode(String.self)) ?? 0)
            case .bool: return .bool(try cell.decode(Bool.self))
            case .bytea: return .blob(Array(buffer: try cell.decode(ByteBuffer.self)))
            default: return .text(try cell.decode(String.self))
            }
        } catch {
            return .null
        }
    }
}

extension Error {
    /// What went wrong, in PostgreSQL's words where it said something: PSQLError's description
    /// hides everything by design.
    var reason: String {
        if let error = self as? PostgresTransactionError {
            return (error.closureError ?? error.beginError ?? error.commitError ?? error).reason
        }
        guard let error = self as? PSQLError else { return "\(self)" }
        if let message = error.serverInfo?[.message] {
            return [error.serverInfo?[.sqlState].map { "\($0): " }, message].compactMap { $0 }.joined()
        }
        if let underlying = error.underlying { return "\(error.code): \(underlying)" }
        return "\(error.code)"
    }
}
