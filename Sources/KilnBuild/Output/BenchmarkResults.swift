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

/// What package-benchmark measured, read from the baseline it saves
/// (`swift package benchmark baseline update kiln`): per target,
/// `.benchmarkBaselines/<Target>/kiln/results.json`, every benchmark × metric with its raw
/// samples (an HdrHistogram), its scaling factor and the thresholds the benchmark's code set.
///
/// Raw samples, not an export: the exports round to the unit they display (a counter of 12,345
/// instructions is "12 K", a time "21 µs"), which would hide the very increases Kiln judges.
public enum BenchmarkResults {
    /// The name Kiln's baselines are saved under, in the workspace only.
    public static let baselineName = "kiln"

    /// One benchmark × metric.
    public struct Measurement: Sendable, Hashable {
        public var target: String
        public var benchmark: String
        /// package-benchmark's name for it: `mallocCountTotal`, `wallClock`.
        public var metric: String
        /// The values at `BenchmarkPercentiles.all`, per iteration; seconds for a time.
        public var percentiles: [Double]
        /// The benchmark's own thresholds for this metric, in the same units; nil when it set none.
        public var thresholds: BenchmarkThresholds?

        public var p50: Double { BenchmarkPercentiles.value(50, in: percentiles) ?? 0 }

        /// The word a regression's message uses ("mallocs", "wall clock"); nil for a figure
        /// that is kept and not judged (peak memory, throughput).
        public var word: String? { BenchmarkResults.counters[metric] ?? BenchmarkResults.times[metric] }
        public var isTime: Bool { BenchmarkResults.times[metric] != nil }

        /// As a test's result: suite the target, name "benchmark · metric", its percentiles the
        /// values (their median is the p50).
        public var testCase: TestCase {
            TestCase(
                suite: target, name: "\(benchmark) · \(metric)", status: .passed, duration: 0,
                measurement: TestMeasurement(values: percentiles, unit: isTime ? .seconds : .count))
        }
    }

    /// The counters judged by any increase, and their words.
    static let counters: [String: String] = [
        "mallocCountTotal": "mallocs", "mallocCountSmall": "small mallocs", "mallocCountLarge": "large mallocs", "memoryLeaked": "leaks",
        "allocatedResidentMemory": "allocated bytes", "retainCount": "retains", "releaseCount": "releases",
        "retainReleaseDelta": "retain/release delta",
        "objectAllocCount": "object allocations", "instructions": "instructions", "syscalls": "syscalls", "readSyscalls": "read syscalls",
        "writeSyscalls": "write syscalls", "contextSwitches": "context switches", "threads": "threads",
    ]
    /// The times (nanoseconds in the samples), and their words.
    static let times: [String: String] = [
        "wallClock": "wall clock", "cpuUser": "user CPU", "cpuSystem": "system CPU", "cpuTotal": "CPU",
    ]
    /// The metrics whose samples cover `scalingFactor` iterations each (package-benchmark's
    /// `useScalingFactor`): divided by it, they are per iteration.
    static let scaled: Set<String> = [
        "cpuSystem", "cpuTotal", "cpuUser", "wallClock", "mallocCountSmall", "mallocCountLarge", "mallocCountTotal", "freeCountTotal",
        "mallocFreeDelta", "mallocBytesCount", "memoryLeaked", "memoryLeakedBytes", "syscalls", "readSyscalls", "readBytesLogical",
        "readBytesPhysical", "writeSyscalls", "writeBytesLogical", "writeBytesPhysical", "instructions", "objectAllocCount",
        "retainCount", "releaseCount", "retainReleaseDelta",
    ]

    /// The saved results of every target under `package` (the workspace), sorted.
    public static func read(package: String) -> [Measurement] {
        let root = package + "/.benchmarkBaselines"
        let targets = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return targets.flatMap { target in
            let file = "\(root)/\(target)/\(baselineName)/results.json"
            guard let data = FileManager.default.contents(atPath: file) else { return [Measurement]() }
            return parse(data)
        }.sorted { ($0.target, $0.benchmark, $0.metric) < ($1.target, $1.benchmark, $1.metric) }
    }

    /// The measurements of one `results.json`: `results` alternates a benchmark's identifier
    /// (`{name, target}`) and its results (one per metric).
    static func parse(_ data: Data) -> [Measurement] {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let results = root["results"] as? [Any] else {
            return []
        }
        var measurements: [Measurement] = []
        for index in stride(from: 0, to: results.count - 1, by: 2) {
            guard let identifier = results[index] as? [String: Any], let name = identifier["name"] as? String,
                let target = identifier["target"] as? String, let metrics = results[index + 1] as? [[String: Any]]
            else { continue }
            for result in metrics {
                guard let metric = (result["metric"] as? [String: Any])?.keys.first,
                    let histogram = ((result["statistics"] as? [String: Any])?["histogram"] as? [String: Any]).flatMap(BenchmarkHistogram.init)
                else { continue }
                let factor = scaled.contains(metric) ? Double((result["scalingFactor"] as? NSNumber)?.intValue ?? 1) : 1
                let unit = (times[metric] != nil ? 1_000_000_000 : 1) * Swift.max(factor, 1)
                measurements.append(
                    Measurement(
                        target: target, benchmark: name, metric: metric,
                        percentiles: BenchmarkPercentiles.all.map { Double(histogram.value(atPercentile: Double($0))) / unit },
                        thresholds: thresholds(result["thresholds"], unit: unit)))
            }
        }
        return measurements
    }

    /// package-benchmark's `BenchmarkThresholds` as JSON encodes it: `relative` and `absolute`,
    /// each alternating a percentile's number (p0 0, p25 1, p50 2, p75 3, p90 4, p99 5, p100 6)
    /// and its threshold (percent; raw units).
    static func thresholds(_ json: Any?, unit: Double) -> BenchmarkThresholds? {
        guard let json = json as? [String: Any] else { return nil }
        let percentiles = [0, 25, 50, 75, 90, 99, 100]
        func pairs(_ key: String, divisor: Double) -> [Int: Double] {
            let flat = (json[key] as? [NSNumber]) ?? []
            var result: [Int: Double] = [:]
            for index in stride(from: 0, to: flat.count - 1, by: 2) where percentiles.indices.contains(flat[index].intValue) {
                result[percentiles[flat[index].intValue]] = flat[index + 1].doubleValue / divisor
            }
            return result
        }
        let thresholds = BenchmarkThresholds(relative: pairs("relative", divisor: 1), absolute: pairs("absolute", divisor: unit))
        return thresholds.percentiles.isEmpty ? nil : thresholds
    }
}
