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

/// One value as it travels to and from either engine: SQLite's storage classes, and a boolean,
/// which SQLite keeps as an integer and PostgreSQL as `boolean`.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case bool(Bool)
}

/// A Swift value that binds to a statement's `?`.
public protocol SQLBindable: Sendable {
    var sqlValue: SQLValue { get }
}

/// A Swift value a column decodes to. `sqlDefault` stands in for NULL or a value of another type
/// where the caller asked for a value: the store's own rows never hold one, and a damaged row
/// reads as empty rather than stopping the server.
public protocol SQLDecodable {
    init?(sqlValue: SQLValue)
    static var sqlDefault: Self { get }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Int: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(Int64(self)) }
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .integer(let value): self.init(value)
        case .real(let value): self.init(exactly: value)
        case .bool(let value): self = value ? 1 : 0
        default: return nil
        }
    }
    public static var sqlDefault: Int { 0 }
}

extension Int64: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .integer(self) }
    public init?(sqlValue: SQLValue) {
        guard let value = Int(sqlValue: sqlValue) else { return nil }
        self.init(value)
    }
    public static var sqlDefault: Int64 { 0 }
}

extension Double: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .real(self) }
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let value): self = value
        case .integer(let value): self.init(value)
        default: return nil
        }
    }
    public static var sqlDefault: Double { 0 }
}

extension Bool: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .bool(self) }
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .bool(let value): self = value
        case .integer(let value): self = value != 0
        default: return nil
        }
    }
    public static var sqlDefault: Bool { false }
}

extension String: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .text(self) }
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .text(let value): self = value
        case .blob(let value): self.init(decoding: value, as: UTF8.self)
        default: return nil
        }
    }
    public static var sqlDefault: String { "" }
}

extension [UInt8]: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .blob(self) }
    public init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .blob(let value): self = value
        case .text(let value): self = Array(value.utf8)
        default: return nil
        }
    }
    public static var sqlDefault: [UInt8] { [] }
}

/// Times are stored as seconds since 1970 on both engines.
extension Date: SQLBindable, SQLDecodable {
    public var sqlValue: SQLValue { .real(timeIntervalSince1970) }
    public init?(sqlValue: SQLValue) {
        guard let seconds = Double(sqlValue: sqlValue) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }
    public static var sqlDefault: Date { Date(timeIntervalSince1970: 0) }
}

/// Enumerations stored by their raw value.
extension SQLDecodable where Self: RawRepresentable, RawValue == String {
    public init?(sqlValue: SQLValue) {
        guard let raw = String(sqlValue: sqlValue) else { return nil }
        self.init(rawValue: raw)
    }
}

extension Date {
    /// Seconds since 1970, as the schema stores times.
    var storeValue: Double { timeIntervalSince1970 }

    init(storeValue: Double) {
        self.init(timeIntervalSince1970: storeValue)
    }
}
