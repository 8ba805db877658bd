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

/// A matrix's cell in one line, the same in the integration's log and in `kiln run`:
/// `cell default-release-none: test-failures in 12.3s on build-2 (Swift version 6.3.1): 1 test failed`.
public enum CellText {
    /// The line of `cell` (an integration that is a cell). The reason is shown for a result that
    /// does not pass, where it says why.
    public static func line(_ cell: Integration) -> String {
        let took = cell.duration.map { " in " + DurationText.tenths($0) } ?? ""
        let host = cell.host.map { " on \($0)" } ?? ""
        let version = cell.swiftVersion.map { " (\($0))" } ?? ""
        let why = cell.result?.isPassing == true ? "" : cell.reason.map { ": \($0.sentence)" } ?? ""
        return "cell \(cell.cell?.name ?? "?"): \(cell.result?.rawValue ?? "unknown")\(took)\(host)\(version)\(why)"
    }
}

extension IntegrationIssue {
    /// Where a matrix found it, as pages and mails say: `in default-debug-thread`; nil without cells.
    public var cellsText: String? {
        cells.isEmpty ? nil : "in " + cells.joined(separator: ", ")
    }
}
