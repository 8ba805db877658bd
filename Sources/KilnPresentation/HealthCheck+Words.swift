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

extension HealthCheck.Finding {
    /// The finding as `/health` says it: "answered in 2 ms", "no answer for 1.4 s (limit 1.0 s)".
    public var sentence: String {
        switch self {
        case .storeAnswered(let seconds): "answered a query in \(Self.milliseconds(seconds))"
        case .storeSilent(let seconds, let limit):
            "no answer to a query for \(DurationText.prose(seconds)) (limit \(DurationText.prose(limit))): the host cannot record its work"
        case .storeFailed(let reason): "cannot be queried: \(reason)"
        case .storeNotAsked(let seconds?): "not asked for \(DurationText.prose(seconds)): the health probe has stopped"
        case .storeNotAsked(nil): "not asked yet"
        case .diskFree(let free, let wanted) where free >= wanted:
            "\(ByteCount.text(free)) free (health.min-free-disk: \(ByteCount.text(wanted)))"
        case .diskFree(let free, let wanted):
            "only \(ByteCount.text(free)) free, under health.min-free-disk (\(ByteCount.text(wanted))): free space on the data directory's disk"
        case .diskUnreadable(let path, let reason): "cannot read the file system of \(path): \(reason)"
        case .schedulerTurned(let seconds, let limit) where seconds <= limit: "turned \(DurationText.prose(seconds)) ago"
        case .schedulerTurned(let seconds, let limit):
            "has not turned for \(DurationText.prose(seconds)) (limit \(DurationText.prose(limit))): no integration is claimed or stopped"
        case .noScheduler: "none runs in this process"
        }
    }

    static func milliseconds(_ seconds: Double) -> String {
        seconds < 0.01 ? String(format: "%.1f ms", seconds * 1000) : String(format: "%.0f ms", seconds * 1000)
    }
}
