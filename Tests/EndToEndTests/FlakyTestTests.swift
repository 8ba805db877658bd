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

@Suite("Flaky tests: re-run before blaming")
struct FlakyTestTests {
    /// A test of each framework that takes its verdict from a plan file: each run pops the
    /// file's first line ("fail" or "pass"); an empty or missing plan passes.
    static func plannedTests(xctest: String, steady: String, swiftTesting: String) -> [String: String] {
        let pop = """
            func verdict(_ path: String) -> Bool {
                let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\\n")
                try? lines.dropFirst().joined(separator: "\\n").write(toFile: path, atomically: true, encoding: .utf8)
                return lines.first != "fail"
            }

            """
        return [
            "Tests/LibTests/LibTests.swift": """
            import Foundation
            import XCTest
            @testable import Lib

            \(pop)
            final class MathTests: XCTestCase {
                func testAdds() { XCTAssertEqual(add(1, 2), 3) }
                func testPlanned() { XCTAssertTrue(verdict("\(xctest)"), "the plan said fail") }
                func testSteady() { XCTAssertTrue(verdict("\(steady)"), "the steady plan said fail") }
            }

            """,
            "Tests/LibSwiftTests/LibSwiftTests.swift": """
            import Foundation
            import Testing
            @testable import Lib

            \(pop)
            @Suite struct SwiftMath {
                @Test func adds() { #expect(add(2, 2) == 4) }
                @Test("Follows the plan") func planned() { #expect(verdict("\(swiftTesting)"), "the plan said fail") }
            }

            """,
        ]
    }

    @Test("A test that fails, then passes when run again, is flaky and blames nobody; one that fails every time is a failure")
    func rerunBeforeBlaming() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let (xctest, steady, swiftTesting) = (
            home.url(".kiln/homes/app/plan-xctest"), home.url(".kiln/homes/app/plan-steady"), home.url(".kiln/homes/app/plan-swift-testing")
        )
        try package.repository.commit(
            "Tests that follow a plan", files: Self.plannedTests(xctest: xctest, steady: steady, swiftTesting: swiftTesting))
        try home.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\n")
        try await home.seed()
        func run(xctest xcPlan: [String], steady steadyPlan: [String] = [], swiftTesting stPlan: [String]) async throws -> String {
            try home.write(".kiln/homes/app/plan-xctest", xcPlan.joined(separator: "\n"))
            try home.write(".kiln/homes/app/plan-steady", steadyPlan.joined(separator: "\n"))
            try home.write(".kiln/homes/app/plan-swift-testing", stPlan.joined(separator: "\n"))
            let result = try await runProcess(Executables.kiln, ["run", "app"], in: home.path)
            return result.standardOutput + result.standardError
        }
        let store = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        func detail(_ number: Int) async throws -> IntegrationDetail {
            try #require(try await store.integration(bot: "app", number: number))
        }
        func log(_ number: Int) throws -> String { try String(contentsOfFile: home.url(".kiln/logs/app/\(number).log"), encoding: .utf8) }
        func status(_ detail: IntegrationDetail, _ name: String) -> TestStatus? { detail.tests.first { $0.name.hasPrefix(name) }?.status }

        // 1. Everything passes.
        let first = try await run(xctest: [], swiftTesting: [])
        #expect(first.contains("result: succeeded"), "\(first)")

        // 2. Each planned test fails once, then passes when run again: flaky, and the
        //    integration succeeds with no issue to blame anyone for.
        let second = try await run(xctest: ["fail"], swiftTesting: ["fail"])
        #expect(second.contains("result: succeeded"), "\(second)")
        #expect(second.contains("flaky: MathTests.testPlanned (failed, then passed when run again)"), "\(second)")
        let two = try await detail(2)
        #expect(status(two, "testPlanned") == .flaky && status(two, "planned()") == .flaky)
        #expect(status(two, "testAdds") == .passed)
        #expect(two.issues.isEmpty, "a flaky test is no issue")
        #expect(two.integration.summary?[.testFailure] == 0)
        #expect(try log(2).contains("=== re-running 2 tests that passed in #1 (1 of 2)"))
        let rerun = try log(2).components(separatedBy: "=== re-running").dropFirst().joined()
        #expect(
            rerun.contains("PackageTests.xctest' --list-tests") && rerun.contains("PackageTests.xctest --testing-library swift-testing")
                && !rerun.contains("testing: swift test"), "the test binary the build made runs again, without swift test: \(rerun)")

        // 3. The same under --parallel, failing twice before it passes: still flaky.
        try home.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\ntest: {arguments: [--parallel]}\n")
        let third = try await run(xctest: ["fail", "fail"], swiftTesting: ["fail"])
        #expect(third.contains("result: succeeded"), "\(third)")
        let three = try await detail(3)
        #expect(status(three, "testPlanned") == .flaky && status(three, "planned()") == .flaky, "\(three.tests)")

        // 4. A test that fails every time (the first run and both re-runs) is a failure, with its
        //    issue, as without re-runs. The planned test fails every time too, but its history
        //    says it is flaky (#2, #3): its failure is a flaky one, blaming nobody.
        // (A new commit: a test that passes and fails on one commit is flaky by that alone.)
        try package.repository.commit("Touch the readme", files: ["README.md": "four\n"])
        let fourth = try await run(xctest: ["fail", "fail", "fail"], steady: ["fail", "fail", "fail"], swiftTesting: [])
        #expect(fourth.contains("result: test-failures"), "\(fourth)")
        let four = try await detail(4)
        #expect(status(four, "testSteady") == .failed && status(four, "planned()") == .passed)
        #expect(status(four, "testPlanned") == .flaky)
        let forgiven = four.tests.first { $0.name == "testPlanned" }?.message ?? ""
        #expect(forgiven.hasPrefix("flaky by its history (it failed, then passed when run again, in #3)"), "\(forgiven)")
        #expect(four.issues.map(\.type) == [.testFailure])
        #expect(four.issues.first?.message.contains("the steady plan said fail") == true)
        let rerunLine = try log(4).split(separator: "\n").first { $0.contains("(2 of 2)") } ?? ""
        #expect(rerunLine.contains("MathTests.testPlanned") && rerunLine.contains("MathTests.testSteady"), "\(rerunLine)")

        // 5. It failed in #4, so it is not re-run now: a failure that was there before is no
        //    news, and re-running it would only cost time.
        try package.repository.commit("Touch the readme again", files: ["README.md": "five\n"])
        let fifth = try await run(xctest: [], steady: ["fail", "pass"], swiftTesting: [])
        #expect(fifth.contains("result: test-failures"), "\(fifth)")
        #expect(try log(5).contains("re-running") == false)
        #expect(try await detail(5).issues.map(\.status) == [.unresolved])

        // 6. Quarantined, its failure is recorded but fails nothing and blames nobody.
        try home.write(
            "Bots/app.yml", "repository: {url: '\(package.repository.url)'}\ntest: {quarantine: [LibTests.MathTests/testSteady]}\n")
        let sixth = try await run(xctest: [], steady: ["fail"], swiftTesting: [])
        #expect(sixth.contains("result: succeeded"), "\(sixth)")
        #expect(sixth.contains("failed (quarantined: fails nothing): MathTests.testSteady"))
        let six = try await detail(6)
        let quarantined = six.tests.first { $0.name == "testSteady" }
        #expect(quarantined?.status == .failed && quarantined?.quarantined == true)
        #expect(six.issues.map(\.status) == [.resolved], "its failure is no issue any more")
        #expect(try log(6).contains("re-running") == false, "a quarantined test is not re-run")
    }
}
