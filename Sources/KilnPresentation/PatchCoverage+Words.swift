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

/// Patch coverage as a person reads it: on the page, in `kiln run`'s summary, in the log.
extension PatchCoverage {
    /// "patch 83.3 % (10 of 12 changed lines)", or that no executable line changed.
    public var sentence: String {
        guard let percent else { return "patch: no executable line changed" }
        return "patch \(String(format: "%.1f %%", percent)) (\(covered) of \(CountText.of(coverable, "changed line")))"
    }

    /// Each file's changed lines no test ran: "Sources/Lib/Lib.swift: 12–14, 20".
    public var uncoveredLines: [String] {
        files.filter { !$0.uncovered.isEmpty }.map { "\($0.path): \(Self.ranges($0.uncovered))" }
    }

    /// `[3, 4, 5, 9]` as "3–5, 9".
    public static func ranges(_ lines: [Int]) -> String {
        var parts: [String] = []
        var start: Int?
        var previous = 0
        for line in lines.sorted() + [Int.max] {
            if start != nil, line == previous + 1 {
                previous = line
                continue
            }
            if let first = start { parts.append(first == previous ? "\(first)" : "\(first)–\(previous)") }
            start = line
            previous = line
        }
        return parts.joined(separator: ", ")
    }
}
