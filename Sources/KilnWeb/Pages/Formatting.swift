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
import KilnPresentation

/// How pages write times, durations and changes: short, and the same everywhere.
enum Formatting {
    static func iso(_ date: Date?) -> String {
        guard let date else { return "" }
        return date.formatted(.iso8601)
    }

    static func shortSHA(_ sha: String?) -> String {
        sha.map(ShortHash.text) ?? "—"
    }
}
