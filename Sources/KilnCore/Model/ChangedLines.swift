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

/// The lines a pull request added or changed, by file (relative to the repository), numbered as
/// in its head: where a review comment may be put.
public struct ChangedLines: Sendable, Hashable, Codable {
    public var lines: [String: Set<Int>]

    public init(lines: [String: Set<Int>] = [:]) {
        self.lines = lines
    }

    /// Whether the pull request changed `line` of `file`.
    public func contains(file: String, line: Int) -> Bool {
        lines[file]?.contains(line) == true
    }
}
