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

/// Reads what `swift package diagnose-api-breaking-changes` prints:
///
///     2 breaking changes detected in Lib:
///       💔 API breakage: func sub(_:_:) has been removed
///
/// and finds where the baseline declared what broke.
public struct APIBreakageReport: Sendable {
    public struct Break: Sendable, Hashable {
        public var module: String
        /// The digester's words: "func sub(_:_:) has been removed".
        public var change: String
    }

    public private(set) var breaks: [Break] = []
    /// The last `error: …` line: why the check could not be done.
    public private(set) var lastError: String?
    /// The modules SwiftPM compared ("No breaking changes detected in Lib", "2 breaking changes
    /// detected in Lib:") or skipped as new ("Skipping Lib because it does not exist in the
    /// baseline"). None at all means it compared nothing: SwiftPM compares only the modules of
    /// library products, and says nothing when there are none.
    public private(set) var modules: [String] = []
    private var module = ""

    public init() {}

    public mutating func consume(_ line: Substring) {
        let text = line.trimmingCharacters(in: .whitespaces)
        if let range = text.range(of: " detected in ") {
            module = String(text[range.upperBound...]).trimmingCharacters(in: CharacterSet(charactersIn: ":"))
            modules.append(module)
        } else if text.hasPrefix("Skipping "), let range = text.range(of: " because ") {
            modules.append(String(text[text.index(text.startIndex, offsetBy: 9)..<range.lowerBound]))
        } else if let range = text.range(of: "API breakage: ") {
            breaks.append(Break(module: module, change: String(text[range.upperBound...])))
        } else if text.hasPrefix("error: ") {
            lastError = String(text.dropFirst(7))
        }
    }

    /// The checkout of `baseline` SwiftPM made under `.build/<triple>/apidiff/`, if it is there.
    public static func baselineCheckout(in workspace: String, baseline: String) -> String? {
        let build = workspace + "/.build"
        let triples = (try? FileManager.default.contentsOfDirectory(atPath: build)) ?? []
        return triples.map { "\(build)/\($0)/apidiff/\(baseline)-checkout" }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// Where the baseline checkout at `root` declared what `change` names ("func sub(_:_:) has
    /// been removed", "constructor Box.init(value:) has been removed"): the first line of its
    /// `Sources/` that declares a thing of that kind and name, relative to `root`.
    public static func declaration(of change: String, in root: String) -> (file: String, line: Int)? {
        let words = change.split(separator: " ", maxSplits: 2)
        guard words.count >= 2 else { return nil }
        let keyword = words[0] == "constructor" ? "init" : String(words[0])
        guard ["func", "var", "let", "struct", "class", "enum", "protocol", "typealias", "init", "actor", "subscript"].contains(keyword) else {
            return nil
        }
        let qualified = words[1].prefix { $0 != "(" && $0 != "<" }
        let name = qualified.split(separator: ".").last.map(String.init) ?? ""
        let declares: (Substring) -> Bool = { line in
            guard let found = line.range(of: keyword + (keyword == "init" ? "" : " ")) else { return false }
            if keyword == "init" { return line[found.upperBound...].hasPrefix("(") || line[found.upperBound...].hasPrefix("?(") }
            let rest = line[found.upperBound...]
            return rest.hasPrefix(name) && rest.dropFirst(name.count).first.map { !$0.isLetter && !$0.isNumber && $0 != "_" } ?? true
        }
        let sources = root + "/Sources"
        guard let files = FileManager.default.enumerator(atPath: sources) else { return nil }
        for case let file as String in files where file.hasSuffix(".swift") {
            guard let text = try? String(contentsOfFile: "\(sources)/\(file)", encoding: .utf8) else { continue }
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where declares(line) {
                return ("Sources/\(file)", index + 1)
            }
        }
        return nil
    }
}
