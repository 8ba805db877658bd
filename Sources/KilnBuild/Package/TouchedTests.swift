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

/// The tests a change touched: in each test file (`Tests/<Target>/….swift`) with changed lines,
/// the test functions those lines fall in (from the nearest test declared above each line, to the
/// next declaration), named as the test output names them: XCTest's `Class`/`testName`, Swift
/// Testing's `Target.Suite`/`name(label:)` (a free function is its own suite, `Target.name()`).
/// A reading of the source, not of the compiler: a test it names wrongly matches nothing and runs
/// with the others.
public enum TouchedTests {
    public static func find(_ changed: ChangedLines, packageAt directory: String) -> [TestCase] {
        var found: [TestCase] = []
        var seen = Set<String>()
        for (file, lines) in changed.lines.sorted(by: { $0.key < $1.key }) where file.hasPrefix("Tests/") && file.hasSuffix(".swift") {
            let parts = file.split(separator: "/")
            guard parts.count >= 3, let text = try? String(contentsOfFile: directory + "/" + file, encoding: .utf8) else { continue }
            let declared = declarations(in: text.components(separatedBy: "\n"), target: String(parts[1]))
            for line in lines.sorted() {
                guard let test = declared.last(where: { $0.line <= line }), let named = test.test, line <= test.end,
                    seen.insert(named.key).inserted
                else { continue }
                found.append(named)
            }
        }
        return found
    }

    /// A function or type declared in a test file: the test it is (nil for anything else) and the
    /// lines it spans until the next declaration at its depth or shallower.
    struct Declaration {
        var line: Int
        var end: Int
        var test: TestCase?
    }

    static func declarations(in lines: [String], target: String) -> [Declaration] {
        var result: [Declaration] = []
        // the enclosing types, by indentation: name, indentation, whether an XCTestCase
        var types: [(name: String, indent: Int, xctest: Bool)] = []
        var attributed = false
        for (index, raw) in lines.enumerated() {
            let text = raw.trimmingCharacters(in: .whitespaces)
            let indent = raw.prefix { $0 == " " || $0 == "\t" }.count
            if text.hasPrefix("@Test") { attributed = true }
            let words = text.replacingOccurrences(of: "(", with: " (").split(separator: " ").map(String.init)
            let keywordIndex = words.firstIndex { ["class", "struct", "enum", "actor", "extension", "func"].contains($0) }
            guard let keywordIndex, keywordIndex + 1 < words.count,
                text.hasPrefix("@") || words[..<keywordIndex].allSatisfy({ modifiers.contains($0) })
            else { continue }
            types.removeAll { $0.indent >= indent }
            for open in result.indices.reversed() where result[open].end == Int.max {
                result[open].end = index
            }
            let name = String(words[keywordIndex + 1].prefix { $0.isLetter || $0.isNumber || $0 == "_" })
            if words[keywordIndex] != "func" {
                types.append((name, indent, text.contains("XCTestCase")))
                result.append(Declaration(line: index + 1, end: index, test: nil))
                attributed = false
                continue
            }
            var test: TestCase?
            if let type = types.last, type.xctest, name.hasPrefix("test"), text.contains("\(name)()") {
                test = TestCase(suite: type.name, name: name, status: .passed, duration: 0)
            } else if attributed || text.hasPrefix("@Test") {
                let function = name + "(" + labels(text) + ")"
                let suite = types.first.map { "\(target).\($0.name)" } ?? "\(target).\(function)"
                test = TestCase(suite: suite, name: function, status: .passed, duration: 0)
            }
            result.append(Declaration(line: index + 1, end: Int.max, test: test))
            attributed = false
        }
        return result
    }

    static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "final", "static", "open", "mutating", "nonisolated", "override",
    ]

    /// `x:` for `func three(x: Int)`, `_:` for `func f(_ value: Int)`: the labels as Swift Testing names them.
    static func labels(_ declaration: String) -> String {
        guard let function = declaration.range(of: "func "), let open = declaration[function.upperBound...].firstIndex(of: "("),
            let close = declaration[open...].firstIndex(of: ")")
        else { return "" }
        let parameters = declaration[declaration.index(after: open)..<close].split(separator: ",")
        return parameters.compactMap { parameter in
            let label = parameter.split(separator: ":").first?.split(separator: " ").first
            return label.map { "\($0):" }
        }.joined()
    }
}
