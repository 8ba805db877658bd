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

/// How Kiln writes a length of time: the same on the pages, in mail and in the terminal.
public enum DurationText {
    /// `4.2 s`, `12 s`, `2 min 05 s`, `1 h 12 min`, or `—` when unknown. For pages and mail.
    public static func prose(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0 else { return "—" }
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
        return String(format: "%d h %02d min", whole / 3600, (whole % 3600) / 60)
    }

    /// `12s`, `2m5s`, `3m`, `1h12m`. For terminal columns.
    public static func compact(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? max(0, Int(seconds.rounded())) : 0
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m\(whole % 60 == 0 ? "" : "\(whole % 60)s")" }
        return "\(whole / 3600)h\((whole % 3600) / 60)m"
    }

    /// `15.8s`: tenths, for the terminal's lines of steps and results.
    public static func tenths(_ seconds: Double) -> String {
        String(format: "%.1fs", seconds.isFinite ? max(0, seconds) : 0)
    }
}
