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

@Suite("package-benchmark: counters judged against their baseline")
struct BenchmarkTests {
    /// A package with a package-benchmark target (`Benchmarks/Parse`) measuring `parse`.
    static func package(parse body: String) -> [String: String] {
        [
            ".gitignore": ".build/\n",
            "Package.swift": """
            // swift-tools-version: 6.1
            import PackageDescription
            let package = Package(
                name: "Lib",
                platforms: [.macOS(.v13)],
                dependencies: [.package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"])],
                targets: [
                    .target(name: "Lib"),
                    .executableTarget(
                        name: "Parse", dependencies: ["Lib", .product(name: "Benchmark", package: "benchmark")], path: "Benchmarks/Parse",
                        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
                ]
            )

            """,
            "Sources/Lib/Lib.swift": "public func parse(_ text: String) -> Int {\n\(body)\n}\n",
            "Benchmarks/Parse/Parse.swift": """
            import Benchmark
            import Lib

            let benchmarks: @Sendable () -> Void = {
                Benchmark("Parse 1 KiB", configuration: .init(metrics: [.wallClock, .mallocCountTotal])) { benchmark in
                    let text = (0..<200).map(String.init).joined(separator: ",")
                    for _ in benchmark.scaledIterations { blackHole(parse(text)) }
                }
                Benchmark(
                    "Parse leniently",
                    configuration: .init(metrics: [.mallocCountTotal], thresholds: [.mallocCountTotal: .init(absolute: [.p50: 1000])])
                ) { benchmark in
                    let text = (0..<200).map(String.init).joined(separator: ",")
                    for _ in benchmark.scaledIterations { blackHole(parse(text)) }
                }
            }

            """,
        ]
    }

    static let splitting = "    var total = 0\n    for part in text.split(separator: \",\") { total += Int(part) ?? 0 }\n    return total"
    /// Bob's change: a String made of every part, an allocation each.
    static let copying =
        "    var total = 0\n    var parts: [String] = []\n    for part in text.split(separator: \",\") { parts.append(String(part)); total += Int(String(part)) ?? 0 }\n    return total + parts.count * 0"
    /// Carol's: no allocation at all.
    static let scanning =
        "    var total = 0, current = 0\n    for byte in text.utf8 {\n        if byte == 44 { total += current; current = 0 } else { current = current * 10 + Int(byte - 48) }\n    }\n    return total + current"

    /// Dave's: Carol's scan, two hundred times over: no allocation more, much slower.
    static let rescanning =
        "    var result = 0\n    for _ in 0..<200 {\n        var total = result % 2, current = 0\n        for byte in text.utf8 {\n            if byte == 44 { total += current; current = 0 } else { current = current * 10 + Int(byte - 48) }\n        }\n        result = total + current\n    }\n    return result"

    @Test(
        "Integration 1 sets the baselines; unchanged code is no regression; Bob's allocation in a loop is a mallocs regression, in his pull request and then on the branch blamed on him, but not where the benchmark's own threshold allows it; Carol's faster code is none; Dave's slower code is a wall clock regression"
    )
    func mallocsRegression() async throws {
        let repo = try GitFixture()
        try repo.commit("Parse", files: Self.package(parse: Self.splitting))
        let home = try TemporaryDirectory()
        try home.write("Bots/lib.yml", "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\nperformance: {benchmarks: true}\n")

        let first = try await home.kilnRun("lib")
        #expect(first.status == 0 && first.output.contains("result: succeeded"), "\(first.output)")
        let measured = try await home.recorded(1, of: "lib").tests
        let mallocs = try #require(measured.first { $0.name == "Parse 1 KiB · mallocCountTotal" }, "\(measured.map(\.name))")
        #expect(mallocs.suite == "Parse" && (mallocs.measurement?.values.first ?? 0) > 0)
        #expect(measured.contains { $0.name == "Parse 1 KiB · wallClock" })

        try repo.commit("Words", files: ["README.md": "parse numbers\n"])
        let second = try await home.kilnRun("lib")
        #expect(second.status == 0 && second.output.contains("result: succeeded"), "unchanged code: \(second.output)")
        #expect(try await home.recorded(2, of: "lib").issues.isEmpty)
        // A warm integration compiles nothing it compiled before: the benchmark step ran SwiftPM
        // with other compiler flags than the build step, and each compiled the plugin's tools
        // (argument-parser and the rest) again, every integration.
        let warmLog = try String(contentsOfFile: home.url(".kiln/logs/lib/2.log"), encoding: .utf8)
        #expect(warmLog.contains("=== testing: swift package") && !warmLog.contains("Compiling ArgumentParser"), "\(warmLog)")

        // Bob's change as a pull request first: judged against the branch's baseline, so it is
        // told before it merges.
        try repo.git("checkout", "-q", "-b", "keep-parts")
        let bobs = try repo.commit(
            "Keep the parts", files: ["Sources/Lib/Lib.swift": "public func parse(_ text: String) -> Int {\n\(Self.copying)\n}\n"], author: .bob)
        try repo.git("checkout", "-q", "main")
        try repo.git("update-ref", "refs/pull/2/head", bobs)
        let pull = try await runProcess(Executables.kiln, ["run", "lib", "--pull", "2"], in: home.path)
        #expect(pull.status == 1, "\(pull.standardOutput)")
        let pullIssues = try await home.recorded(3, of: "lib").issues
        #expect(pullIssues.contains { $0.type == .performanceRegression && $0.message.hasPrefix("Parse 1 KiB: mallocs p50 ") }, "\(pullIssues)")
        #expect(!pullIssues.contains { $0.message.hasPrefix("Parse leniently") }, "within its own threshold: \(pullIssues)")

        try repo.git("merge", "-q", "--ff-only", "keep-parts")
        let third = try await home.kilnRun("lib")
        #expect(third.status == 1 && third.output.contains("result: test-failures"), "\(third.output)")
        let regression = try #require(try await home.recorded(4, of: "lib").issues.first { $0.message.hasPrefix("Parse 1 KiB: mallocs p50 ") })
        #expect(regression.type == .performanceRegression && regression.message.contains("→"), "\(regression.message)")
        #expect(regression.status == .new && regression.introducedBy.map(\.name) == ["Bob Builder"])

        try repo.commit(
            "Scan the bytes", files: ["Sources/Lib/Lib.swift": "public func parse(_ text: String) -> Int {\n\(Self.scanning)\n}\n"],
            author: GitFixture.Author("Carol Coder", "carol@example.com"))
        let fourth = try await home.kilnRun("lib")
        let left = try await home.recorded(5, of: "lib").issues.filter { $0.type == .performanceRegression && $0.status != .resolved }
        #expect(left.isEmpty && fourth.output.contains("result: succeeded"), "faster code is no regression: \(left) \(fourth.output)")

        try repo.commit(
            "Scan again", files: ["Sources/Lib/Lib.swift": "public func parse(_ text: String) -> Int {\n\(Self.rescanning)\n}\n"],
            author: GitFixture.Author("Dave Dev", "dave@example.com"))
        let fifth = try await home.kilnRun("lib")
        let slower = try await home.recorded(6, of: "lib").issues.filter { $0.type == .performanceRegression && $0.status == .new }
        #expect(fifth.status == 1, "\(fifth.output)")
        #expect(slower.map { $0.message.components(separatedBy: " p50 ").first } == ["Parse 1 KiB: wall clock"], "\(slower)")
        #expect(slower.first?.introducedBy.map(\.name) == ["Dave Dev"])
    }
}
