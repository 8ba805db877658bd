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
import KilnBuild
import KilnCore
import KilnPresentation
import KilnTestSupport
import Testing

@Suite("package-benchmark's saved results, as Kiln reads and judges them")
struct BenchmarkResultsTests {
    /// An HdrHistogram of `samples` (value: count) as package-benchmark's `results.json` encodes
    /// it (three significant digits: 2,048 sub-buckets, the unit 1).
    static func histogram(_ samples: [UInt64: UInt64]) -> [String: Any] {
        var counts = [UInt64](repeating: 0, count: 21_504)
        for (value, count) in samples {
            let bucket = max(0, 53 - (value | 2047).leadingZeroBitCount)
            counts[((bucket + 1) << 10) + Int(value >> bucket) - 1024] += count
        }
        return [
            "counts": counts, "_totalCount": samples.values.reduce(0, +), "maxValue": samples.keys.max() ?? 0,
            "minNonZeroValue": samples.keys.filter { $0 > 0 }.min() ?? 0, "unitMagnitude": 0, "subBucketHalfCountMagnitude": 10,
            "subBucketMask": 2047, "leadingZeroCountBase": 53, "lowestDiscernibleValue": 1, "numberOfSignificantValueDigits": 3,
        ]
    }

    static func result(_ metric: String, _ samples: [UInt64: UInt64], scaling: Int = 1, thresholds: [String: Any]? = nil) -> [String: Any] {
        var result: [String: Any] = [
            "metric": [metric: [String: Any]()], "scalingFactor": scaling, "timeUnits": "microseconds", "warmupIterations": 1, "tags": [:],
            "statistics": ["histogram": histogram(samples), "timeUnits": 0, "prefersLarger": false],
        ]
        result["thresholds"] = thresholds
        return result
    }

    @Test("Each benchmark × metric: percentiles from the raw samples, per iteration, times in seconds, with the benchmark's thresholds")
    func read() throws {
        let package = try TemporaryDirectory()
        let parse: [Any] = [
            ["name": "Parse 1 KiB", "target": "Parse"],
            [
                Self.result("mallocCountTotal", [12: 5769, 13: 1, 14: 4230], thresholds: ["relative": [2, 50], "absolute": [2, 30, 4, 40]]),
                Self.result("wallClock", [20_381: 6, 40_000: 4], scaling: 1000),
                Self.result("throughput", [900: 10]),
            ],
            ["name": "v1.2 format", "target": "Parse"], [Self.result("instructions", [123_456: 2])],
        ]
        let json = try JSONSerialization.data(withJSONObject: ["baselineName": "kiln", "machine": [:], "results": parse])
        try package.write(".benchmarkBaselines/Parse/kiln/results.json", String(decoding: json, as: UTF8.self))
        try package.write(".benchmarkBaselines/Parse/main/results.json", "{\"results\": []}")
        let measured = BenchmarkResults.read(package: package.path)
        #expect(measured.map(\.benchmark) == ["Parse 1 KiB", "Parse 1 KiB", "Parse 1 KiB", "v1.2 format"], "only Kiln's baseline is read")

        let mallocs = try #require(measured.first { $0.metric == "mallocCountTotal" })
        #expect(mallocs.target == "Parse" && mallocs.p50 == 12 && mallocs.word == "mallocs" && !mallocs.isTime)
        #expect(BenchmarkPercentiles.value(75, in: mallocs.percentiles) == 14 && mallocs.percentiles.first == 12)
        #expect(mallocs.thresholds == BenchmarkThresholds(relative: [50: 50], absolute: [50: 30, 90: 40]))
        #expect(mallocs.testCase.suite == "Parse" && mallocs.testCase.name == "Parse 1 KiB · mallocCountTotal")
        #expect(mallocs.testCase.measurement?.median == 12, "the values' median is the p50")

        let time = try #require(measured.first { $0.metric == "wallClock" })
        // 20,381 ns falls in a bucket of 16 values: HdrHistogram reports its highest, 20,383;
        // each sample covers 1,000 iterations.
        #expect(time.isTime && time.word == "wall clock" && time.thresholds == nil)
        #expect(abs(time.p50 - 20_383e-12) < 1e-15 && abs((time.percentiles.last ?? 0) - 40_000e-12) < 1e-15, "\(time.percentiles)")
        #expect(measured.first { $0.metric == "throughput" }?.word == nil, "kept, not judged")
        #expect(measured.first { $0.metric == "instructions" }?.p50 == 123_456, "its bucket's highest, no higher than the largest sample")
    }

    static func spread(_ p50: Double, _ fastest: Double? = nil) -> [Double] {
        BenchmarkPercentiles.all.map { $0 == 0 ? (fastest ?? p50 * 0.9) : p50 * (1 + Double($0 - 50) / 500) }
    }

    @Test("A counter regresses beyond the tolerance, by one at least, or beyond the benchmark's own thresholds; no baseline is none")
    func counters() {
        func judge(_ value: Double, _ before: [Double], tolerance: Double = 0.1, thresholds: BenchmarkThresholds? = nil) -> PerformanceRegression? {
            PerformanceRegression.judgeBenchmark(
                Self.spread(value), baseline: before.map { Self.spread($0) }, word: "mallocs", isTime: false, thresholds: thresholds,
                tolerance: tolerance, host: "build-2")
        }
        #expect(judge(19, [12, 12, 13]) != nil)
        #expect(judge(13, [12, 12, 12]) == nil)
        #expect(judge(2, [1], tolerance: 0.5) != nil)
        #expect(judge(1_000, []) == nil)
        let message = judge(19, [12])?.message(suite: "Parse", name: "Parse 1 KiB · mallocCountTotal")
        #expect(message == "Parse 1 KiB: mallocs p50 12 → 19 (+58%) on build-2")
        let lenient = BenchmarkThresholds(absolute: [50: 30])
        #expect(judge(19, [12], thresholds: lenient) == nil, "within the benchmark's own absolute threshold")
        #expect(judge(50, [12], thresholds: lenient) != nil)
        let tail = BenchmarkThresholds(relative: [90: 5])
        let regression = PerformanceRegression.judgeBenchmark(
            Self.spread(12).enumerated().map { $0.offset == 18 ? $0.element * 1.5 : $0.element }, baseline: [Self.spread(12)],
            word: "mallocs", isTime: false, thresholds: tail, tolerance: 0.1, host: "h")
        #expect(regression?.benchmark?.percentile == 90, "the percentile the threshold names")
        let single = PerformanceRegression.judgeBenchmark(
            [19], baseline: [[12]], word: "mallocs", isTime: false, thresholds: nil, tolerance: 0.1, host: "h")
        #expect(single != nil, "a measurement kept as its p50 alone")
    }

    @Test("A time regresses when its median and its fastest are slower and the difference is beyond chance")
    func times() {
        func judge(_ values: [Double], _ runs: [[Double]]) -> PerformanceRegression? {
            PerformanceRegression.judgeBenchmark(values, baseline: runs, word: "wall clock", isTime: true, thresholds: nil, tolerance: 0.1, host: "h")
        }
        let before = [Self.spread(20e-6), Self.spread(21e-6), Self.spread(20e-6)]
        let slower = judge(Self.spread(40e-6), before)
        #expect(slower?.message(suite: "Parse", name: "Parse 1 KiB · wallClock") == "Parse 1 KiB: wall clock p50 20.0 µs → 40.0 µs (+100%) on h")
        #expect(judge(Self.spread(20.5e-6), before) == nil, "the same code")
        #expect(judge(Self.spread(40e-6, 18e-6), before) == nil, "as fast as before at its fastest: a busy machine")
        #expect(judge(Self.spread(40e-6), []) == nil)
    }
}
