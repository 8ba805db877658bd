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
import KilnTestSupport
import Testing

/// Kiln's test results against SwiftPM's own, on a real package from the machine's copies whose
/// one test target holds both XCTest and Swift Testing tests (swift-system 1.8.1):
/// however Kiln runs the tests (the built test binary itself, the failed tests first, or in
/// shards), what it records is what `swift test --xunit-output` reports by hand.
@Suite("SwiftPM's own results: a real package's tests as Kiln records them equal swift test's xunit")
struct SwiftPMParityTests {
    /// One failing test of each library, beside the package's own.
    static let failing = """
        import Testing
        import XCTest

        final class KilnParityXCTests: XCTestCase {
            func testFailsOnPurpose() { XCTAssertEqual(1 + 1, 3, "on purpose") }
        }

        @Suite struct KilnParitySwiftTests {
            @Test func failsOnPurpose() { #expect(1 + 1 == 3) }
        }

        """

    @Test(
        "swift-system, a failing test of each library added: every test by the built binary, failed first, then failed first and the rest in 3 shards: each result and the counts equal swift test's xunit reports"
    )
    func parity() async throws {
        let repo = try GitFixture()
        // github.com reads from the machine's copies through the system's git config, which the
        // fixture's own git calls leave out
        let fetched = try await runProcess(
            "/usr/bin/git", ["-C", repo.path, "fetch", "-q", "https://github.com/apple/swift-system", "refs/tags/1.8.1"])
        try #require(fetched.status == 0, "swift-system 1.8.1 from the machine's package copies: \(fetched.standardError)")
        try repo.git("reset", "-q", "--hard", "FETCH_HEAD")
        // Its io_uring tests share one file, so run at once (in shards, or by SwiftPM's own
        // --parallel) they fail by turns: the package's race, not something to compare.
        try repo.git("rm", "-q", "Tests/SystemTests/IORingTests.swift")
        try repo.commit("Fail on purpose", files: ["Tests/SystemTests/KilnParityTests.swift": Self.failing])

        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\n")
        // #1 knows no failure: every test in one run, by the test binary itself.
        let before = try await home.kilnRun("app")
        #expect(before.status == 1 && before.output.contains("result: test-failures"), "\(before.output)")
        let plainLog = try String(contentsOfFile: home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        #expect(
            plainLog.contains("PackageTests.xctest --testing-library swift-testing") && !plainLog.contains("=== testing: swift test"),
            "every test by the built test binary, without swift test: \(plainLog)")

        // A second commit, the tests unchanged: #2 runs what failed in #1 first, in a pass of its
        // own; #3, the bot now with `shards: 3`, those again first, then the rest in three parts.
        try repo.commit("Words", files: ["NOTES.md": "parity\n"])
        let second = try await home.kilnRun("app")
        #expect(second.status == 1 && second.output.contains("result: test-failures"), "\(second.output)")
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\ntest: {shards: 3}\n")
        let third = try await home.kilnRun("app")
        #expect(third.status == 1 && third.output.contains("result: test-failures"), "\(third.output)")
        for number in [2, 3] {
            let log = try String(contentsOfFile: home.url(".kiln/logs/app/\(number).log"), encoding: .utf8)
            #expect(log.contains("first, the 2 tests that failed or were flaky in #\(number - 1)"), "#\(number): \(log)")
            #expect(log.contains("=== shard 3 of 3: ") == (number == 3), "#\(number): \(log)")
        }

        // SwiftPM by hand, in a clone of the same commit: on Linux only its --parallel runner
        // writes XCTest's xunit report (Swift Testing's is written either way).
        let clone = try TemporaryDirectory("kiln-parity")
        let cloned = try await runProcess("/usr/bin/git", ["clone", "-q", repo.path, clone.url("package")])
        try #require(cloned.status == 0, "\(cloned.standardError)")
        let tested = try await runProcess(
            "/usr/bin/env", ["swift", "test", "--parallel", "--xunit-output", clone.url("results.xml")], in: clone.url("package"),
            timeout: .seconds(900))
        #expect(tested.status != 0, "the two tests that fail on purpose: \(tested.standardOutput)")
        var expected: [String] = []
        for report in ["results.xml", "results-swift-testing.xml"] {
            expected += try XUnitReport.results(String(contentsOfFile: clone.url(report), encoding: .utf8))
        }
        #expect(expected.count > 50 && expected.filter { $0.hasSuffix(" failed") }.count == 2, "\(expected)")

        for number in 1...3 {
            let detail = try await home.recorded(number)
            let recorded = detail.tests.map { "\(XUnitReport.key(suite: $0.suite, name: $0.name)) \($0.status.rawValue)" }.sorted()
            #expect(recorded == expected.sorted(), "#\(number) against swift test's xunit")
            #expect(detail.integration.summary?.tests == expected.count, "#\(number): \(String(describing: detail.integration.summary))")
            #expect(detail.integration.summary?[.testFailure] == 2, "#\(number): \(String(describing: detail.integration.summary))")
        }
    }
}

/// SwiftPM's xunit reports (`--xunit-output`, and Swift Testing's beside it), read as each
/// test's `suite/name status`, named as Kiln names them without the module.
enum XUnitReport {
    /// Each `<testcase classname="Module.Suite" name="test">`: failed when a `<failure` comes
    /// before its end, else passed.
    static func results(_ xml: String) -> [String] {
        var results: [String] = []
        var rest = Substring(xml)
        while let start = rest.range(of: "<testcase ") {
            let attributes = rest[start.upperBound...].prefix { $0 != ">" }
            let selfClosing = attributes.hasSuffix("/")
            let body = rest[start.upperBound...]
            let end = selfClosing ? body.startIndex : (body.range(of: "</testcase>")?.lowerBound ?? body.endIndex)
            let failed = !selfClosing && body[body.startIndex..<end].contains("<failure")
            let suite = attribute("classname", in: attributes)
            let name = attribute("name", in: attributes)
            results.append("\(key(suite: unescaped(suite), name: unescaped(name))) \(failed ? "failed" : "passed")")
            rest = body[end...]
        }
        return results
    }

    /// A test as both sides can name it: the suite's last component (XCTest's reports add the
    /// module, Swift Testing's nest suites with dots) and the name.
    static func key(suite: String, name: String) -> String {
        "\(suite.split(separator: ".").last.map(String.init) ?? suite)/\(name)"
    }

    private static func attribute(_ name: String, in attributes: Substring) -> String {
        guard let start = attributes.range(of: " \(name)=\"") ?? (attributes.hasPrefix("\(name)=\"") ? attributes.range(of: "\(name)=\"") : nil)
        else { return "" }
        return String(attributes[start.upperBound...].prefix { $0 != "\"" })
    }

    private static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&apos;", with: "'").replacingOccurrences(of: "&amp;", with: "&")
    }
}
