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

import KilnCore
import Testing

@Suite("Performance: a measurement against its baseline")
struct PerformanceTests {
    static let steady = [0.040, 0.042, 0.041, 0.043, 0.039, 0.040, 0.044, 0.041, 0.042, 0.040]

    @Test("Clearly slower beyond the tolerance is a regression")
    func slower() throws {
        let slower = Self.steady.map { $0 * 1.4 }
        let regression = try #require(PerformanceRegression.judge(slower, baseline: Self.steady, tolerance: 0.1, host: "build-2"))
        #expect(regression.host == "build-2" && abs(regression.value - 0.0574) < 0.0005 && abs(regression.baseline - 0.041) < 0.0005)
    }

    @Test("Noise, a slowdown within the tolerance, an improvement, or too little to compare is no regression")
    func notRegressions() {
        let noisy = [0.039, 0.045, 0.041, 0.040, 0.043, 0.038, 0.046, 0.040, 0.041, 0.044]
        #expect(PerformanceRegression.judge(noisy, baseline: Self.steady, tolerance: 0.1, host: "h") == nil)
        #expect(PerformanceRegression.judge(Self.steady.map { $0 * 1.05 }, baseline: Self.steady, tolerance: 0.1, host: "h") == nil)
        #expect(PerformanceRegression.judge(Self.steady.map { $0 * 0.5 }, baseline: Self.steady, tolerance: 0.1, host: "h") == nil)
        #expect(PerformanceRegression.judge(Self.steady.map { $0 * 2 }, baseline: [], tolerance: 0.1, host: "h") == nil, "no baseline yet")
        #expect(PerformanceRegression.judge([0.09, 0.09], baseline: Self.steady, tolerance: 0.1, host: "h") == nil, "two values prove nothing")
    }

    @Test("A run that was slow while the machine was busy, but whose best iterations are as fast as ever, is no regression")
    func busyMachine() {
        // As measured on a 2-core machine with one core kept busy: most iterations shared a core.
        let busy = [0.0103, 0.0103, 0.0102, 0.0103, 0.0103, 0.0103, 0.0101, 0.0062, 0.0059, 0.0059]
        let baseline = [0.0061, 0.0060, 0.0059, 0.0059, 0.0059, 0.0059, 0.0060, 0.0059, 0.0061, 0.0059]
        #expect(PerformanceRegression.judge(busy, baseline: baseline, tolerance: 0.1, host: "h") == nil)
        #expect(
            PerformanceRegression.judge(busy.map { $0 * 1.3 }, baseline: baseline, tolerance: 0.1, host: "h") != nil, "30 % slower, every iteration")
    }

    @Test("One outlier far slower does not make a run a regression: the median and the ranks decide")
    func outlier() {
        var values = Self.steady
        values[3] = 0.400
        #expect(PerformanceRegression.judge(values, baseline: Self.steady, tolerance: 0.1, host: "h") == nil)
    }
}
