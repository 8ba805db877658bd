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
import KilnStore
import KilnTestSupport
import Testing

@Suite("kiln run: performance regressions")
struct PerformanceRunTests {
    /// The fixture's XCTests with a `measure {}` of `iterations` rounds of arithmetic.
    static func measuring(_ iterations: Int) -> [String: String] {
        [
            "Tests/LibTests/LibTests.swift": """
            import XCTest
            @testable import Lib

            final class MathTests: XCTestCase {
                func testAdds() { XCTAssertEqual(add(1, 2), 3) }
                func testSpeed() {
                    measure {
                        var total = 0
                        for index in 0..<\(iterations) { total &+= add(index, 31) }
                        XCTAssertNotEqual(total, 1)
                    }
                }
            }

            """
        ]
    }

    @Test(
        "A measure {} made far slower by one commit is a regression blamed on it; the same code run again is none; another host has its own baseline; --parallel still measures"
    )
    func regression() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit("Measure the speed", files: Self.measuring(50_000))
        // A wide tolerance: the test proves the verdict, not the machine's steadiness under the suite's load.
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\nperformance: {tolerance: 300%}\n")
        try await home.seed()

        let first = try await home.kilnRun()
        #expect(first.output.contains("result: succeeded"), "no baseline yet is no regression: \(first.output)")
        let measured = try #require(try await home.recorded(1).tests.first { $0.name == "testSpeed" }?.measurement)
        #expect(measured.values.count == 10 && measured.baseline == nil, "XCTest measures ten times, against nothing yet: \(measured)")
        let second = try await home.kilnRun()
        #expect(second.output.contains("result: succeeded"), "the same code again: \(second.output)")

        let bob = GitFixture.Author.bob
        let slower = try repo.commit("Measure more", files: Self.measuring(5_000_000), author: bob)
        let third = try await home.kilnRun()
        #expect(third.status == 1 && third.output.contains("result: test-failures"), "\(third.output)")
        let three = try await home.recorded(3)
        let regression = try #require(three.issues.first { $0.type == .performanceRegression }, "\(three.issues)")
        #expect(regression.status == .new && regression.message.hasPrefix("MathTests.testSpeed: "), "\(regression.message)")
        #expect(regression.message.contains("% slower than ") && regression.message.hasSuffix(" on \(three.integration.host ?? "?")"))
        #expect(regression.introducedBy == [Committer(name: "Bob Builder", email: "bob@example.com", commit: slower)])
        #expect(three.integration.summary?[.performanceRegression] == 1)
        #expect(third.output.contains("performance regressions 1"), "\(third.output)")
        let judged = try #require(three.tests.first { $0.name == "testSpeed" }?.measurement)
        #expect((judged.change ?? 0) > 3 && judged.baseline != nil, "the measurement keeps its baseline and change: \(judged)")

        // Another machine: the same slower code is its first measurement there, so no regression.
        try home.write("kiln.yml", "host: build-2\n")
        let fourth = try await home.kilnRun()
        #expect(fourth.output.contains("result: succeeded"), "no baseline on build-2 yet: \(fourth.output)")
        let four = try await home.recorded(4)
        #expect(four.integration.host == "build-2")
        #expect(four.tests.first { $0.name == "testSpeed" }?.measurement?.baseline == nil, "other hosts' measurements are no baseline")

        // Under --parallel SwiftPM hides measurements: the measuring test runs again, serially.
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\nperformance: {tolerance: 300%}\ntest: {arguments: [--parallel]}\n")
        let fifth = try await home.kilnRun()
        #expect(fifth.output.contains("result: succeeded"), "\(fifth.output)")
        let log = try String(contentsOfFile: home.url(".kiln/logs/app/5.log"), encoding: .utf8)
        #expect(log.contains("measuring 1 test serially (--parallel hides measurements): MathTests.testSpeed"), "\(log)")
        let parallel = try #require(try await home.recorded(5).tests.first { $0.name == "testSpeed" }?.measurement, "measured under --parallel")
        #expect(parallel.values.count == 10 && parallel.baseline != nil, "judged against build-2's own baseline: \(parallel)")
    }
}
