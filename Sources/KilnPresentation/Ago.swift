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

/// "5 min ago": how long ago something happened, the same on the pages and in `kiln status`.
public enum Ago {
    /// `just now`, `5 min ago`, `3 h ago`, `2 days ago`; `—` for no date.
    public static func text(_ date: Date?, now: Date) -> String {
        guard let date else { return "—" }
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<45: return "just now"
        case ..<3600: return "\(max(1, (seconds + 30) / 60)) min ago"
        case ..<(48 * 3600): return "\(seconds / 3600) h ago"
        default: return "\(seconds / 86400) days ago"
        }
    }
}
