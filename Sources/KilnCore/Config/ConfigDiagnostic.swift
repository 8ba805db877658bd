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

/// One problem in a configuration file, positioned like a compiler diagnostic.
///
/// Printed as `Bots/x.yml:12:5: error: unknown key 'shedule' (did you mean 'schedule'?)`.
public struct ConfigDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// The file as the user named it (relative paths stay relative).
    public var file: String
    /// 1-based line and column.
    public var line: Int
    public var column: Int
    /// Where in the document, `schedule.poll` or `triggers[1].on`; empty for the whole file.
    public var keyPath: String
    /// What is wrong, including what would be right.
    public var message: String
    /// An error makes the file unusable; a warning is worth a look and changes nothing.
    public var severity: Severity

    public enum Severity: String, Sendable, Hashable {
        case error, warning
        /// A choice worth knowing about, made on purpose (`sandbox: none`).
        case note
    }

    public init(file: String, line: Int, column: Int, keyPath: String, message: String, severity: Severity = .error) {
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
        self.severity = severity
    }

    public var description: String { "\(file):\(line):\(column): \(severity.rawValue): \(message)" }
}

/// Why configuration could not be loaded.
public enum ConfigError: Error, Sendable, CustomStringConvertible {
    /// The file was read; these are all of its problems.
    case invalid([ConfigDiagnostic])
    /// The file or directory could not be read at all.
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalid(let diagnostics): diagnostics.map(\.description).joined(separator: "\n")
        case .unreadable(let path, let reason): "\(path): error: cannot read: \(reason)"
        }
    }

    public var diagnostics: [ConfigDiagnostic] {
        switch self {
        case .invalid(let diagnostics): diagnostics
        case .unreadable(let path, let reason):
            [ConfigDiagnostic(file: path, line: 1, column: 1, keyPath: "", message: "cannot read: \(reason)")]
        }
    }
}
