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

/// A small Swift package in a real git repository, for integrations to build and test.
///
/// `Lib` has an XCTest target and a Swift Testing target; `write(_:)` changes its files and
/// commits, so a test can walk one workspace through success, warnings, errors and failures,
/// building incrementally (a cold build costs ~15 s here; each later one a few).
public final class FixturePackage: Sendable {
    public let repository: GitFixture

    public init() throws {
        repository = try GitFixture()
        try repository.commit(
            "Add the package",
            files: [
                ".gitignore": ".build/\n",
                "Package.swift": """
                // swift-tools-version: 6.0
                import PackageDescription

                let package = Package(
                    name: "Fixture",
                    targets: [
                        .target(name: "Lib"),
                        .testTarget(name: "LibTests", dependencies: ["Lib"]),
                        .testTarget(name: "LibSwiftTests", dependencies: ["Lib"]),
                    ]
                )

                """,
                "Sources/Lib/Lib.swift": Self.library(),
                "Tests/LibTests/LibTests.swift": Self.xctests(),
                "Tests/LibSwiftTests/LibSwiftTests.swift": Self.swiftTests(),
            ])
    }

    /// The library, with optional extra lines at the top (to move code down) and in the body.
    public static func library(padding: Int = 0, body: String = "") -> String {
        String(repeating: "// padding\n", count: padding) + """
            public func add(_ a: Int, _ b: Int) -> Int {
            \(body)
                return a + b
            }

            """
    }

    public static func xctests(failing: Bool = false) -> String {
        """
        import XCTest
        @testable import Lib

        final class MathTests: XCTestCase {
            func testAdds() { XCTAssertEqual(add(1, 2), 3) }
            func testMaybeFails() { XCTAssertEqual(add(1, 2), \(failing ? 4 : 3), "one plus two") }
        }

        """
    }

    public static func swiftTests(failing: Bool = false) -> String {
        """
        import Testing
        @testable import Lib

        @Suite struct SwiftMath {
            @Test func adds() { #expect(add(2, 2) == 4) }
            @Test("Adds again") func addsAgain() { #expect(add(2, 2) == \(failing ? 5 : 4)) }
        }

        """
    }
}
