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

/// `performance`: how XCTest's measurements (`measure {}`) are judged against their baseline.
public struct PerformanceSettings: Sendable, Hashable {
    /// What a regression is.
    public enum Regressions: String, Sendable, Hashable, CaseIterable {
        /// A regressed measurement fails the integration as a test failure (Xcode Server's way).
        case failure
        /// It is shown and counted as a warning.
        case warning
    }

    /// How much slower than the baseline (a fraction: 0.1 is 10 %) a measurement may be.
    public var tolerance: Double
    /// How many of the latest integrations on the same host make the baseline.
    public var baseline: Int
    public var regressions: Regressions
    /// `benchmarks`: the package-benchmark targets (`Benchmarks/`) to run after the tests; empty:
    /// all of them; nil: none.
    public var benchmarks: [String]? = nil

    public init(tolerance: Double = 0.1, baseline: Int = 5, regressions: Regressions = .failure) {
        self.tolerance = tolerance
        self.baseline = baseline
        self.regressions = regressions
    }
}

/// A measurement that got slower than its baseline, by more than the tolerance and by more than
/// chance explains.
public struct PerformanceRegression: Sendable, Hashable {
    /// The median of this run's values, and of the baseline's, in seconds.
    public var value: Double
    public var baseline: Double
    public var host: String
    /// For a package-benchmark measurement: its metric's word and percentile; nil for XCTest's.
    public var benchmark: BenchmarkFigure? = nil

    /// How much slower, as a fraction of the baseline.
    public var slowdown: Double { baseline > 0 ? value / baseline - 1 : 0 }

    /// Whether `values` (this run's measurements, seconds) regressed against `baseline` (the
    /// values of earlier runs on the same host). All three must hold:
    /// - the median is slower than the baseline's by more than `tolerance` (the figure reported);
    /// - so is the fastest value, against the baseline's fastest: noise only ever adds time, so
    ///   a run whose best iteration is as fast as before ran unchanged code on a busy machine
    ///   (the minimum as the robust estimate, as Julia's BenchmarkTools judges);
    /// - the difference is significant by a one-sided Mann-Whitney U test at p < 0.01.
    /// Too few values on either side (fewer than 3), or no baseline at all, is never a regression.
    public static func judge(_ values: [Double], baseline: [Double], tolerance: Double, host: String) -> PerformanceRegression? {
        guard values.count >= 3, baseline.count >= 3, let fastest = values.min(), let fastestBefore = baseline.min() else { return nil }
        let (current, before) = (median(values), median(baseline))
        guard current > before * (1 + tolerance), fastest > fastestBefore * (1 + tolerance), slower(values, than: baseline) else {
            return nil
        }
        return PerformanceRegression(value: current, baseline: before, host: host)
    }

    public static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The Mann-Whitney U test, one-sided, with the normal approximation and a continuity
    /// correction: whether `values` are larger than `baseline` beyond chance (z > 2.326, p < 0.01).
    static func slower(_ values: [Double], than baseline: [Double]) -> Bool {
        var u = 0.0
        for value in values {
            for other in baseline { u += value > other ? 1 : value == other ? 0.5 : 0 }
        }
        let (n1, n2) = (Double(values.count), Double(baseline.count))
        let mean = n1 * n2 / 2
        let deviation = (n1 * n2 * (n1 + n2 + 1) / 12).squareRoot()
        guard deviation > 0 else { return false }
        return (u - mean - 0.5) / deviation > 2.326
    }
}

/// What one test's `measure {}` (or a package-benchmark metric) measured in one integration,
/// and the baseline it was judged against.
public struct TestMeasurement: Sendable, Hashable, Codable {
    /// What the values are.
    public enum Unit: String, Sendable, Hashable, Codable {
        case seconds
        /// A package-benchmark counter: mallocs, instructions… per iteration.
        case count
    }

    /// Seconds of wall-clock time, one value per iteration; for a package-benchmark metric, its
    /// percentiles (`BenchmarkPercentiles.all`).
    public var values: [Double]
    /// The median of the baseline's values on the same host, when there was a baseline.
    public var baseline: Double?
    /// nil: seconds (as every measurement was before counters).
    public var unit: Unit?
    /// Whether it was found regressed (a `performance-regression` issue names it).
    public var regressed: Bool?

    public init(values: [Double], baseline: Double? = nil, unit: Unit? = nil) {
        self.values = values
        self.baseline = baseline
        self.unit = unit
    }

    /// The median of `values`, in seconds.
    public var median: Double { values.isEmpty ? 0 : PerformanceRegression.median(values) }

    /// How much slower (positive) or faster (negative) than the baseline, as a fraction of it.
    public var change: Double? {
        guard let baseline, baseline > 0, !values.isEmpty else { return nil }
        return median / baseline - 1
    }
}

/// A test whose measurement regressed, as the integration found it.
public struct MeasuredRegression: Sendable, Hashable {
    public var test: TestCase
    public var regression: PerformanceRegression

    public init(test: TestCase, regression: PerformanceRegression) {
        self.test = test
        self.regression = regression
    }
}
