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

import KilnCore

/// A compiler diagnostic read from build output.
public struct Diagnostic: Sendable, Hashable {
    public enum Severity: String, Sendable, Hashable {
        case error, warning
    }

    public var severity: Severity
    /// Relative to the repository root when the file is inside it; nil for diagnostics without a
    /// location (linker errors, package resolution).
    public var file: String?
    public var line: Int?
    public var column: Int?
    public var message: String
    /// The `note:` lines that followed it.
    public var notes: [String]
    /// The check of the `analyze` step that found it; nil for the compiler's.
    public var check: AnalyzerCheck?

    public init(
        severity: Severity, file: String?, line: Int?, column: Int?, message: String, notes: [String] = [], check: AnalyzerCheck? = nil
    ) {
        self.check = check
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.notes = notes
    }

    /// An error without a place: a tool that failed, a check that could not run.
    public static func error(_ message: String) -> Diagnostic {
        Diagnostic(severity: .error, file: nil, line: nil, column: nil, message: message)
    }
}

/// Reads compiler diagnostics from `swift build` output.
///
/// Understands `path:line:col: error|warning|note: message` (swiftc, clang) and unlocated
/// `error: …` lines (SwiftPM, the linker). Notes are folded into the diagnostic before them;
/// source snippets are skipped; a diagnostic reported again (by another target, or by the test
/// build) is kept once; paths under `root` are made relative to it.
public struct DiagnosticParser: Sendable {
    public let root: String
    private(set) public var diagnostics: [Diagnostic] = []
    private var seen: Set<Key> = []
    private var lastIndex: Int?

    private struct Key: Hashable {
        var severity: Diagnostic.Severity
        var file: String?
        var line: Int?
        var column: Int?
        var message: String
    }

    public init(root: String) {
        self.root = root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    /// Parses a whole output at once.
    public static func parse(_ output: String, root: String) -> [Diagnostic] {
        var parser = DiagnosticParser(root: root)
        for line in output.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) { parser.consume(line) }
        return parser.diagnostics
    }

    /// Feeds one line (without its newline).
    public mutating func consume<Bytes: Collection<UInt8>>(_ line: Bytes) {
        guard let parsed = Self.parseLine(line) else { return }
        switch parsed.kind {
        case .note:
            if let lastIndex, diagnostics[lastIndex].notes.count < 5 { diagnostics[lastIndex].notes.append(parsed.message) }
        case .error, .warning:
            let severity: Diagnostic.Severity = parsed.kind == .error ? .error : .warning
            let file = parsed.file.map(relative)
            let key = Key(severity: severity, file: file, line: parsed.line, column: parsed.column, message: parsed.message)
            guard seen.insert(key).inserted else {
                lastIndex = nil
                return
            }
            diagnostics.append(Diagnostic(severity: severity, file: file, line: parsed.line, column: parsed.column, message: parsed.message))
            lastIndex = diagnostics.count - 1
        }
    }

    private func relative(_ path: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }

    private enum Kind { case error, warning, note }

    private struct Parsed {
        var kind: Kind
        var file: String?
        var line: Int?
        var column: Int?
        var message: String
    }

    private static let markers: [(Kind, [UInt8])] = [
        (.error, Array(": error: ".utf8)), (.warning, Array(": warning: ".utf8)), (.note, Array(": note: ".utf8)),
    ]

    /// Finds `: error: ` (or warning, note) and reads `path:line:col` before it. Works on bytes:
    /// most lines of a build log hold no diagnostic and are rejected after one scan for `: `.
    private static func parseLine<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Parsed? {
        // Most lines of a build log ("[12/340] Compiling …") hold no ": " at all: reject them
        // without copying.
        var previous: UInt8 = 0
        var candidate = false
        for byte in bytes {
            if previous == UInt8(ascii: ":"), byte == UInt8(ascii: " ") {
                candidate = true
                break
            }
            previous = byte
        }
        guard candidate else { return nil }
        let line = Array(bytes)
        if line.starts(with: "error: ".utf8) {
            return Parsed(kind: .error, message: String(decoding: line.dropFirst(7), as: UTF8.self))
        }
        var index = 0
        while index + 8 < line.count {
            guard line[index] == UInt8(ascii: ":"), line[index + 1] == UInt8(ascii: " ") else {
                index += 1
                continue
            }
            for (kind, marker) in markers where line[index...].starts(with: marker) {
                let message = String(decoding: line[(index + marker.count)...], as: UTF8.self)
                return located(kind: kind, location: line[..<index], message: message)
            }
            index += 1
        }
        return nil
    }

    /// `path:line:col` or `path:line`; a location that is not one (`warning: ` after other text)
    /// yields nothing, so ordinary output that happens to contain `: error: ` is not an issue.
    private static func located(kind: Kind, location: ArraySlice<UInt8>, message: String) -> Parsed? {
        let parts = location.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return nil }
        func number(_ part: ArraySlice<UInt8>) -> Int? {
            guard !part.isEmpty, part.count < 9, part.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return part.reduce(0) { $0 * 10 + Int($1 - 48) }
        }
        var line: Int?
        var column: Int?
        var pathParts = parts
        if parts.count >= 3, let l = number(parts[parts.count - 2]), let c = number(parts[parts.count - 1]) {
            line = l
            column = c
            pathParts = parts.dropLast(2)
        } else if let l = number(parts[parts.count - 1]) {
            line = l
            pathParts = parts.dropLast(1)
        } else {
            return nil
        }
        let path = String(decoding: Array(pathParts.joined(separator: [UInt8(ascii: ":")])), as: UTF8.self)
        guard !path.isEmpty, !path.contains(" |"), path.first != " " else { return nil }
        return Parsed(kind: kind, file: path, line: line, column: column, message: message)
    }
}
