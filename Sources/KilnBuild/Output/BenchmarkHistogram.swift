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

/// One benchmark × metric's samples as package-benchmark keeps them in a baseline's
/// `results.json`: an HdrHistogram (`statistics.histogram`), raw values (nanoseconds for times,
/// counts for counters) in buckets of three significant digits. Kiln reads percentiles from it
/// as HdrHistogram's `valueAtPercentile` does, so a p50 is the very figure
/// `swift package benchmark` prints, before its rounding to the displayed unit.
struct BenchmarkHistogram: Sendable {
    let counts: [UInt64]
    let total: UInt64
    let minNonZero: UInt64
    let max: UInt64
    let unitMagnitude: Int
    let subBucketHalfCountMagnitude: Int
    let subBucketMask: UInt64
    let leadingZeroCountBase: Int

    /// From the histogram's JSON object; nil when a field is missing or the counts are empty.
    init?(_ json: [String: Any]) {
        func integer(_ key: String) -> UInt64? { (json[key] as? NSNumber).map(\.uint64Value) }
        guard let counts = json["counts"] as? [NSNumber], !counts.isEmpty, let total = integer("_totalCount"),
            let max = integer("maxValue"), let unitMagnitude = integer("unitMagnitude"),
            let half = integer("subBucketHalfCountMagnitude"), half < 32, let mask = integer("subBucketMask"),
            let base = integer("leadingZeroCountBase"), unitMagnitude < 64, base <= 64
        else { return nil }
        self.counts = counts.map(\.uint64Value)
        self.total = total
        self.minNonZero = integer("minNonZeroValue") ?? 0
        self.max = max
        self.unitMagnitude = Int(unitMagnitude)
        self.subBucketHalfCountMagnitude = Int(half)
        self.subBucketMask = mask
        self.leadingZeroCountBase = Int(base)
    }

    private var subBucketHalfCount: Int { 1 << subBucketHalfCountMagnitude }
    private var lowest: UInt64 { counts[0] > 0 || total == 0 ? 0 : minNonZero }

    /// The largest value that `percentile` % of the samples are at most (HdrHistogram's rule: the
    /// highest value equivalent to the bucket where the cumulative count reaches it).
    func value(atPercentile percentile: Double) -> UInt64 {
        guard percentile > 0 else { return lowest }
        guard percentile < 100 else { return max }
        let requested = Swift.min(Swift.max(percentile.nextDown, 0), 100)
        let wanted = Swift.max(1, UInt64((requested * Double(total) / 100).rounded(.up)))
        var cumulative: UInt64 = 0
        for (index, count) in counts.enumerated() {
            cumulative += count
            if cumulative >= wanted { return Swift.max(Swift.min(highestEquivalent(to: value(at: index)), max), lowest) }
        }
        return 0
    }

    private func value(at index: Int) -> UInt64 {
        var bucket = (index >> subBucketHalfCountMagnitude) - 1
        var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucket < 0 {
            subBucket -= subBucketHalfCount
            bucket = 0
        }
        return UInt64(subBucket) << (bucket + unitMagnitude)
    }

    private func highestEquivalent(to value: UInt64) -> UInt64 {
        let bucket = Swift.max(0, leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount)
        let subBucket = Int(value >> (bucket + unitMagnitude))
        let lowestEquivalent = UInt64(subBucket) << (bucket + unitMagnitude)
        let adjusted = subBucket >= 2 * subBucketHalfCount ? bucket + 1 : bucket
        return lowestEquivalent + (UInt64(1) << (unitMagnitude + adjusted)) - 1
    }
}
