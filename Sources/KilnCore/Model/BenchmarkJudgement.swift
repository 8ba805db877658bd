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

/// The percentiles Kiln keeps of each package-benchmark measurement, in this order, as the
/// measurement's `values`: p0 (the fastest), every 5 % to p90, p99, p100 (21 values, so that their
/// median is the p50). They hold what the benchmark's thresholds can name (p0, p25, p50, p75,
/// p90, p99, p100).
public enum BenchmarkPercentiles {
    public static let all: [Int] = Array(stride(from: 0, through: 90, by: 5)) + [99, 100]

    /// The value at `percentile` in `values` as kept, or nil. A measurement of one value (as
    /// the first benchmarks were kept) has its p50 alone.
    public static func value(_ percentile: Int, in values: [Double]) -> Double? {
        if values.count == all.count, let index = all.firstIndex(of: percentile) { return values[index] }
        return values.count == 1 && percentile == 50 ? values[0] : nil
    }
}

/// A benchmark's own thresholds for one metric, as its code sets them
/// (`Benchmark.Configuration(thresholds:)`): by percentile, how much worse than the baseline it
/// may be, relatively (percent) and absolutely (in the measurement's units: seconds for a time).
/// Exceeding either is a regression, as `swift package benchmark baseline check` says.
public struct BenchmarkThresholds: Sendable, Hashable {
    public var relative: [Int: Double]
    public var absolute: [Int: Double]

    public init(relative: [Int: Double] = [:], absolute: [Int: Double] = [:]) {
        self.relative = relative
        self.absolute = absolute
    }

    public var percentiles: [Int] { Set(relative.keys).union(absolute.keys).sorted() }

    func exceeded(_ value: Double, baseline: Double, at percentile: Int) -> Bool {
        relative[percentile].map { value > baseline * (1 + $0 / 100) } == true || absolute[percentile].map { value - baseline > $0 } == true
    }
}

/// What a package-benchmark regression is about: the metric's word ("mallocs", "wall clock"),
/// the percentile that regressed, and whether the values are seconds.
public struct BenchmarkFigure: Sendable, Hashable {
    public var word: String
    public var percentile: Int
    public var isTime: Bool

    public init(word: String, percentile: Int, isTime: Bool) {
        self.word = word
        self.percentile = percentile
        self.isTime = isTime
    }
}

extension PerformanceRegression {
    /// Whether a package-benchmark measurement (`values` at `BenchmarkPercentiles.all`) regressed
    /// against `runs` (the same measurement's values in earlier integrations on the same host).
    /// Compared at the percentiles the benchmark's `thresholds` name, against them; without
    /// thresholds, at p50 against `tolerance`. The baseline at a percentile is the median of the
    /// runs' values there.
    /// - A counter (what the machine's load does not change) regresses on that alone, by one
    ///   count at least.
    /// - A time also needs its fastest value (p0) slower than the baseline's fastest (by the
    ///   tolerance, without thresholds) and the values slower beyond chance (Mann-Whitney, as
    ///   XCTest's measurements are judged); the caller measures it again before it counts.
    /// No baseline is never a regression.
    public static func judgeBenchmark(
        _ values: [Double], baseline runs: [[Double]], word: String, isTime: Bool, thresholds: BenchmarkThresholds?,
        tolerance: Double, host: String
    ) -> PerformanceRegression? {
        let own = thresholds.flatMap { $0.percentiles.isEmpty ? nil : $0 }
        for percentile in own?.percentiles ?? [50] {
            let before = runs.compactMap { BenchmarkPercentiles.value(percentile, in: $0) }
            guard let value = BenchmarkPercentiles.value(percentile, in: values), !before.isEmpty else { continue }
            let baseline = median(before)
            guard own?.exceeded(value, baseline: baseline, at: percentile) ?? (value > baseline * (1 + tolerance)) else { continue }
            if isTime {
                let fastest = runs.compactMap { BenchmarkPercentiles.value(0, in: $0) }
                guard let now = BenchmarkPercentiles.value(0, in: values), let then = fastest.min(),
                    now > then * (1 + (own == nil ? tolerance : 0)), slower(values, than: Array(runs.joined()))
                else { continue }
            } else if value - baseline < 1 {
                continue
            }
            var regression = PerformanceRegression(value: value, baseline: baseline, host: host)
            regression.benchmark = BenchmarkFigure(word: word, percentile: percentile, isTime: isTime)
            return regression
        }
        return nil
    }
}
