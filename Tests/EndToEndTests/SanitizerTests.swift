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

@Suite("kiln run: sanitizer reports are issues")
struct SanitizerTests {
    /// A package whose `count()` is serial, or races: a block on a global queue and its caller
    /// both write one variable (Swift 5 mode, which lets that compile).
    static func package(racing: Bool) -> [String: String] {
        let body =
            racing
            ? "    DispatchQueue.global().async(group: group) { count += 1 }\n    count += 1\n"
            : "    count += 1\n    DispatchQueue.global().async(group: group) {}\n    count += 1\n"
        return [
            "Package.swift": """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "Racy",
                targets: [
                    .target(name: "Lib", swiftSettings: [.swiftLanguageMode(.v5)]),
                    .testTarget(name: "LibTests", dependencies: ["Lib"], swiftSettings: [.swiftLanguageMode(.v5)]),
                ]
            )

            """,
            "Sources/Lib/Lib.swift": "import Dispatch\n\npublic func count() -> Int {\n    var count = 0\n    let group = DispatchGroup()\n"
                + body + "    group.wait()\n    return count\n}\n",
            "Tests/LibTests/LibTests.swift": """
            import XCTest
            @testable import Lib

            final class CountTests: XCTestCase {
                func testCounts() { XCTAssertGreaterThan(count(), 0) }
            }

            """,
        ]
    }

    @Test(
        "In a thread-sanitizer cell under the default sandbox, a data race is a sanitizer issue at its line, new and blamed on its author, failing the integration; the fix resolves it"
    )
    func threadSanitizer() async throws {
        let home = try TemporaryDirectory()
        let repo = try GitFixture()
        try repo.commit("Count", files: Self.package(racing: false).merging([".gitignore": ".build/\n"]) { $1 })
        try home.write(
            "Bots/app.yml", "repository: {url: '\(repo.url)'}\nmatrix: {sanitizer: thread}\n")
        let first = try await home.kilnRun()
        #expect(first.status == 0 && first.output.contains("result: succeeded"), "no race yet: \(first.output)")

        let racing = try repo.commit("Count on another thread too", files: Self.package(racing: true), author: .bob)
        let second = try await home.kilnRun()
        #expect(second.status == 1 && second.output.contains("result: test-failures"), "\(second.output)")
        #expect(second.output.contains("failures 0, sanitizer reports 1 (+1)"), "the test passed; the race fails it: \(second.output)")
        let two = try await home.recorded(2)
        let race = try #require(two.issues.first { $0.type == .sanitizer }, "\(two.issues)")
        // The race's two writes are lines 6 (the block) and 7 (its caller); the report gives a
        // line for whichever of them TSan saw first.
        #expect(race.file == "Sources/Lib/Lib.swift" && [6, 7].contains(race.line) && race.status == .new, "\(race)")
        // TSan's own words: it calls this race a `Swift access race`, or now and then a `data race`.
        #expect(["ThreadSanitizer: Swift access race (", "ThreadSanitizer: data race ("].contains { race.message.hasPrefix($0) }, "\(race.message)")
        #expect(race.introducedBy == [Committer(name: "Bob Builder", email: "bob@example.com", commit: racing)])
        #expect(two.tests.allSatisfy { $0.status == .passed }, "the race is no failed test or process: \(two.tests)")

        // The same race again, however TSan catches it this time, is the same issue.
        let again = try await home.kilnRun()
        #expect(again.output.contains("result: test-failures"), "\(again.output)")
        #expect(try await home.recorded(3).issues.filter { $0.type == .sanitizer }.map(\.status) == [.unresolved])

        try repo.commit("Count serially", files: Self.package(racing: false))
        let fourth = try await home.kilnRun()
        #expect(fourth.output.contains("result: succeeded"), "\(fourth.output)")
        #expect(try await home.recorded(4).issues.filter { $0.type == .sanitizer }.map(\.status) == [.resolved])
    }
}
