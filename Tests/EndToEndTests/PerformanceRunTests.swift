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

    @Test("A measure {} made far slower by one commit is a regression blamed on it; the same code run again is none")
    func regression() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit("Measure the speed", files: Self.measuring(50_000))
        // A wide tolerance: the test proves the verdict, not the machine's steadiness under the suite's load.
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\nperformance: {tolerance: 300%}\n")

        let first = try await home.kilnRun()
        #expect(first.output.contains("result: succeeded"), "no baseline yet is no regression: \(first.output)")
        let measured = try #require(try await home.recorded(1).tests.first { $0.name == "testSpeed" }?.measurement)
        #expect(measured.count == 10, "XCTest measures ten times: \(measured)")
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
    }
}
