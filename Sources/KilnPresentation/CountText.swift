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

/// How Kiln writes a count with its noun: `0 errors`, `1 warning`, `2 tests`. The same on pages,
/// in mail, in statuses and in the terminal.
public enum CountText {
    public static func of(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? Self.plural(of: singular))"
    }

    /// The noun for several: `errors`, `test failures`.
    public static func plural(of singular: String) -> String {
        singular + "s"
    }
}
