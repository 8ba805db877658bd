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

import Yams

/// Reads one YAML document node by node, collecting every problem with its position.
///
/// Validation happens on the node tree rather than through `Decodable`, because Yams' decoding
/// errors carry no position; walking the tree gives each problem the mark of the node at fault,
/// and lets the reader carry on after a problem so that a file's problems are all reported at once.
/// A reader belongs to one decoding call on one task.
final class ConfigReader {
    let file: String
    private var collected: [ConfigDiagnostic] = []

    /// Every problem found so far, in the order they appear in the file.
    var diagnostics: [ConfigDiagnostic] {
        collected.enumerated().sorted { ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset) }
            .map(\.element)
    }

    init(file: String) {
        self.file = file
    }

    func error(_ message: String, at node: Node?, path: ConfigPath) {
        let mark = node?.mark
        collected.append(
            ConfigDiagnostic(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1, keyPath: path.description, message: message))
    }

    /// The document's root node; nil, with a diagnostic, when the text is not valid YAML.
    func compose(_ text: String) -> Node? {
        do {
            // A file with no document at all reads as an empty (null) one. Kiln reads every
            // scalar's text itself (`bool`, `integer`, `isNull`), so the basic resolver and no
            // constructor serve: the default resolver runs seven regular expressions over every
            // scalar and key (a fifth of `kiln trigger`'s own time), the default constructor
            // builds its tables, and the default encoding copies the environment to choose UTF-8.
            let constructor = Constructor([:], [:], [:])
            return try Yams.compose(yaml: text, .basic, constructor, .utf8) ?? Node.scalar(Node.Scalar("", Tag(.null), .plain))
        } catch let error as YamlError {
            let (message, line, column) = Self.describe(error)
            collected.append(ConfigDiagnostic(file: file, line: line, column: column, keyPath: "", message: message))
        } catch {
            collected.append(ConfigDiagnostic(file: file, line: 1, column: 1, keyPath: "", message: "invalid YAML: \(error)"))
        }
        return nil
    }

    private static func describe(_ error: YamlError) -> (String, Int, Int) {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let suffix = context.map { " (\($0.text) that starts at line \($0.mark.line), column \($0.mark.column))" } ?? ""
            return ("invalid YAML: \(problem)\(suffix)", mark.line, mark.column)
        case .reader(let problem, _, _, _):
            return ("invalid YAML: \(problem)", 1, 1)
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return ("duplicate key \(keys) (each key may appear once per mapping)", context.mark.line, context.mark.column)
        default:
            return ("invalid YAML: \(error)", 1, 1)
        }
    }

    // MARK: Mappings

    /// The fields of a mapping, after reporting keys not in `keys`; nil, with a diagnostic, when
    /// `node` is not a mapping.
    func mapping(_ node: Node, path: ConfigPath, keys: [String], what: String? = nil) -> MappingFields? {
        guard case .mapping(let mapping) = node else {
            let name = what ?? (path.lastKey.isEmpty ? "the file" : "'\(path.lastKey)'")
            error("\(name) must be a mapping of keys to values, not \(Self.kind(of: node))", at: node, path: path)
            return nil
        }
        var fields: [String: (key: Node, value: Node)] = [:]
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key else {
                error("keys must be plain words, not \(Self.kind(of: key))", at: key, path: path)
                continue
            }
            guard keys.contains(scalar.string) else {
                let inside = path.lastKey.isEmpty ? "" : " in '\(path.lastKey)'"
                error("unknown key '\(scalar.string)'\(inside)\(Suggestion.hint(for: scalar.string, in: keys))", at: key, path: path)
                continue
            }
            fields[scalar.string] = (key, value)
        }
        return MappingFields(node: node, path: path, fields: fields, name: what.map { $0 } ?? (path.lastKey.isEmpty ? nil : "'\(path.lastKey)'"))
    }

    // MARK: Scalars

    static func isNull(_ node: Node) -> Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    static func kind(of node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            if isNull(node) { return "nothing" }
            return "'\(scalar.string)'"
        }
    }

    /// A non-empty scalar's text; nil, with a diagnostic, otherwise.
    func string(_ node: Node, path: ConfigPath, expected: String = "a string") -> String? {
        guard case .scalar(let scalar) = node, !Self.isNull(node) else {
            error("'\(path.lastKey)' must be \(expected), not \(Self.kind(of: node))", at: node, path: path)
            return nil
        }
        return scalar.string
    }

    /// A boolean; `other` names a word the key also takes, for the error.
    func bool(_ node: Node, path: ConfigPath, or other: String? = nil) -> Bool? {
        if case .scalar(let scalar) = node, scalar.style == .plain {
            switch scalar.string.lowercased() {
            case "true": return true
            case "false": return false
            default: break
            }
        }
        let choices = other.map { "true, false or \($0)" } ?? "true or false"
        error("'\(path.lastKey)' must be \(choices), not \(Self.kind(of: node))", at: node, path: path)
        return nil
    }

    func integer(_ node: Node, path: ConfigPath, range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string) else {
            error("'\(path.lastKey)' must be a whole number, not \(Self.kind(of: node))", at: node, path: path)
            return nil
        }
        guard range.contains(value) else {
            let bound = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
            error("'\(path.lastKey)' must be \(bound), not \(value)", at: node, path: path)
            return nil
        }
        return value
    }

    func duration(_ node: Node, path: ConfigPath, allowZero: Bool) -> Duration? {
        guard let text = string(node, path: path, expected: "a duration such as 90s, 2m or 1h30m") else { return nil }
        guard let duration = Duration.parsing(text) else {
            error("'\(path.lastKey)' must be a duration such as 90s, 2m or 1h30m, not '\(text)'", at: node, path: path)
            return nil
        }
        if !allowZero, duration == .zero {
            error("'\(path.lastKey)' must be longer than zero", at: node, path: path)
            return nil
        }
        return duration
    }

    /// One of a fixed set of words, with a did-you-mean for near misses.
    func choice<Value: RawRepresentable & CaseIterable>(_ node: Node, path: ConfigPath, as type: Value.Type) -> Value?
    where Value.RawValue == String {
        choice(node, path: path, among: Value.allCases.map(\.rawValue)).flatMap(Value.init(rawValue:))
    }

    /// One of `names`.
    func choice(_ node: Node, path: ConfigPath, among names: [String]) -> String? {
        guard let text = string(node, path: path, expected: "one of \(names.joined(separator: ", "))") else { return nil }
        guard names.contains(text) else {
            error("'\(path.lastKey)' must be one of \(names.joined(separator: ", ")), not '\(text)'", at: node, path: path)
            return nil
        }
        return text
    }

    /// A list of scalars; a single scalar is read as a list of one. Each element is checked by `element`.
    func list<Element>(_ node: Node, path: ConfigPath, element: (Node, ConfigPath) -> Element?) -> [Element]? {
        switch node {
        case .sequence(let sequence):
            var values: [Element] = []
            var failed = false
            for (index, item) in sequence.enumerated() {
                if let value = element(item, path.index(index)) { values.append(value) } else { failed = true }
            }
            return failed ? nil : values
        case .scalar where !Self.isNull(node):
            return element(node, path).map { [$0] }
        default:
            error("'\(path.lastKey)' must be a list, not \(Self.kind(of: node))", at: node, path: path)
            return nil
        }
    }

    func strings(_ node: Node, path: ConfigPath) -> [String]? {
        list(node, path: path) { item, itemPath in
            guard case .scalar(let scalar) = item, !Self.isNull(item) else {
                error("'\(itemPath.lastKey)' must be a list of strings, not a list holding \(Self.kind(of: item))", at: item, path: itemPath)
                return nil
            }
            return scalar.string
        }
    }

    func emailAddresses(_ node: Node, path: ConfigPath) -> [EmailAddress]? {
        list(node, path: path) { item, itemPath in
            guard let text = string(item, path: itemPath, expected: "an email address") else { return nil }
            guard let address = EmailAddress(text) else {
                error("'\(text)' is not an email address (expected name@example.com or Name <name@example.com>)", at: item, path: itemPath)
                return nil
            }
            return address
        }
    }

    /// A list of words from a fixed set, each checked with a did-you-mean.
    func choices(_ node: Node, path: ConfigPath, names: [String], what: String) -> [String]? {
        list(node, path: path) { item, itemPath in
            guard let text = string(item, path: itemPath, expected: what) else { return nil }
            guard names.contains(text) else {
                error("'\(path.lastKey)' value '\(text)' is not \(what)\(Suggestion.hint(for: text, in: names))", at: item, path: itemPath)
                return nil
            }
            return text
        }
    }
}

/// The recognised fields of one mapping.
struct MappingFields {
    let node: Node
    let path: ConfigPath
    let fields: [String: (key: Node, value: Node)]
    /// How messages name this mapping (`'repository'`, `trigger 'lint'`); nil at the top of the file.
    var name: String?

    subscript(key: String) -> Node? { fields[key]?.value }

    func path(_ key: String) -> ConfigPath { path.key(key) }

    /// The value of `key`, or a "missing key" diagnostic on the mapping.
    func required(_ key: String, in reader: ConfigReader, hint: String = "") -> Node? {
        if let value = fields[key]?.value { return value }
        let inside = name.map { " in \($0)" } ?? ""
        reader.error("missing key '\(key)'\(inside)\(hint)", at: node, path: path)
        return nil
    }
}
