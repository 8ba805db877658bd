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
        runs(lines).map(range).joined(separator: ", ")
    }

    /// `12` or `12–14`.
    public static func range(_ run: ClosedRange<Int>) -> String {
        run.count == 1 ? "\(run.lowerBound)" : "\(run.lowerBound)–\(run.upperBound)"
    }
}

extension PatchCoverage.File {
    /// "5 of 6": its changed executable lines that ran.
    public var figure: String { "\(covered) of \(coverable)" }

    /// What a file's view with coverage says of an executable line, for a screen reader.
    public static func lineWords(ran: Bool) -> String { ran ? "run by a test" : "not run by any test" }

    /// "18 of 24 executable lines ran at this commit, 5 of the 6 changed": what a file's
    /// view with coverage says above it. Nil without the whole file's lines.
    public var wholeFileSentence: String? {
        guard let run, let notRun else { return nil }
        return
            "\(run.count) of \(CountText.of(run.count + notRun.count, "executable line")) ran at this commit, \(covered) of the \(coverable) changed"
    }
}
