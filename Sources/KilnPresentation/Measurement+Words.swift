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

/// A regression as its issue's message and the log say it.
extension PerformanceRegression {
    /// "PTests.testSpeed: 0.061 s, 38% slower than 0.044 s on build-2"; for a benchmark,
    /// "Parse 1 KiB: mallocs p50 12 → 19 (+58%) on build-2".
    public func message(suite: String, name: String) -> String {
        let percent = Int((slowdown * 100).rounded())
        if let benchmark {
            let title = name.components(separatedBy: " · ").first ?? name
            let (from, to) = benchmark.isTime ? (Self.seconds(baseline), Self.seconds(value)) : ("\(Int(baseline))", "\(Int(value))")
            return "\(title): \(benchmark.word) p\(benchmark.percentile) \(from) → \(to) (+\(percent)%) on \(host)"
        }
        return "\(suite).\(name): \(Self.seconds(value)), \(percent)% slower than \(Self.seconds(baseline)) on \(host)"
    }

    /// "0.044 s"; "12.5 µs" for what takes under a millisecond, "350 ns" under a microsecond.
    public static func seconds(_ value: Double) -> String {
        if value >= 0.001 { return String(format: "%.3f s", value) }
        return value >= 0.000_001 ? String(format: "%.1f µs", value * 1_000_000) : String(format: "%.0f ns", value * 1_000_000_000)
    }
}

/// A measurement as the pages show it.
extension TestMeasurement {
    /// `value` as the pages show it: "0.044 s", "12.5 µs"; a count "12" or "0.25".
    public func text(_ value: Double) -> String {
        guard unit == .count else { return PerformanceRegression.seconds(value) }
        return value.rounded() == value || value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    /// "+38 %", "−12 %", or nil without a baseline.
    public var changeText: String? {
        change.map { change in
            let percent = Int((change * 100).rounded())
            return percent > 0 ? "+\(percent) %" : percent < 0 ? "−\(-percent) %" : "±0 %"
        }
    }
}
