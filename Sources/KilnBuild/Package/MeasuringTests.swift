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

/// The XCTests that call `measure {}`, for `swift test --parallel`, which prints only failing
/// tests' output and so hides most measurements: Kiln runs these again, serially, to read them.
public enum MeasuringTests {
    /// Which of `tests` (those that passed) measure something: those the run printed a
    /// measurement for, and those that call `measure` in their own body, from the package's
    /// sources under `Tests/` (`class Suite` … `func testName` … `measure {`). A test that
    /// measures only through a helper of its own and printed nothing is not found; it still runs,
    /// only without a measurement.
    ///
    /// Under `--parallel` a measurement is printed when XCTest fails it for varying too much,
    /// which is when other tests ran beside it: such a value is never a baseline's equal, so the
    /// caller measures every test found here again, whether or not it printed one.
    public static func find(_ tests: [TestCase], packageAt root: String) -> [TestCase] {
        let passed = tests.filter { $0.status == .passed }
        guard !passed.isEmpty else { return [] }
        var measuring = Set(passed.filter { $0.measurement != nil }.map(\.key))
        if passed.contains(where: { !measuring.contains($0.key) }) {
            for file in sources(under: root + "/Tests") {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8), text.contains("measure") else { continue }
                measuring.formUnion(keys(in: text))
            }
        }
        return passed.filter { measuring.contains($0.key) }
    }

    /// `Suite/testName` of each test function in `source` whose body calls `measure(…)`,
    /// `measure {` or `measureMetrics(…)`: the nearest `class` and `func` above the call.
    static func keys(in source: String) -> Set<String> {
        var keys: Set<String> = []
        var suite: String?
        var function: String?
        for line in source.split(separator: "\n") {
            let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? line
            if let name = declared("class ", in: code) {
                suite = name
                function = nil
            } else if let name = declared("func ", in: code) {
                function = name
            }
            if let suite, let function, calls(code) { keys.insert(suite + "/" + function) }
        }
        return keys
    }

    /// The identifier after `keyword` in `line`, when the line declares one.
    private static func declared(_ keyword: String, in line: Substring) -> String? {
        guard let range = line.range(of: keyword) else { return nil }
        let before = line[..<range.lowerBound]
        guard before.allSatisfy({ $0 == " " || $0 == "\t" || $0.isLetter }) else { return nil }
        let name = line[range.upperBound...].prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    private static func calls(_ line: Substring) -> Bool {
        for marker in ["measure {", "measure(", "measureMetrics("] {
            guard let range = line.range(of: marker) else { continue }
            let before = line[..<range.lowerBound].last
            if before.map({ !($0.isLetter || $0.isNumber || $0 == "_") }) ?? true { return true }
        }
        return false
    }

    private static func sources(under directory: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        return walker.compactMap { ($0 as? String).flatMap { $0.hasSuffix(".swift") ? directory + "/" + $0 : nil } }
    }
}
