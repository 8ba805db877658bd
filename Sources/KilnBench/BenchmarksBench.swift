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

/// package-benchmark's counters: Kiln's cost beyond `swift package benchmark` itself, and false
/// counter regressions over twenty integrations of unchanged code with a core kept busy.
struct BenchmarksBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        let repository = try package()
        let home = work.url("benchmarks-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "repository: {url: '\(repository)'}\ntest: {enabled: false}\nperformance: {benchmarks: true}\n".write(
            toFile: home + "/Bots/lib.yml", atomically: false, encoding: .utf8)
        try command(kiln, ["run", "lib"], in: home)

        // Twenty more of the same code, a core kept busy all along: counters must not move.
        let busy = Process()
        busy.executableURL = URL(fileURLWithPath: "/usr/bin/yes")
        busy.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try busy.run()
        defer { if busy.isRunning { sendSignal(SIGKILL, to: busy.processIdentifier) } }
        var kilnTimes: [Double] = []
        for _ in 0..<20 {
            kilnTimes.append(try DependenciesBench.timed { try command(kiln, ["run", "lib"], in: home) })
        }
        sendSignal(SIGKILL, to: busy.processIdentifier)
        let store = try SQLiteStore.open(dataDirectory: home + "/.kiln")
        var (counters, times) = (0, 0)
        for number in 2...21 {
            let found = try await store.integration(bot: "lib", number: number)?.issues.filter { $0.type == .performanceRegression } ?? []
            times += found.filter { $0.message.contains(": wall clock p") }.count
            counters += found.count - found.filter { $0.message.contains(": wall clock p") }.count
        }
        table.add(
            "false counter regressions, unchanged code", target: "0 in 20", measured: "\(counters) in 20",
            comparison: "20 kiln run of the same commit after a baseline, `yes` keeping a core busy")
        table.add(
            "false wall clock regressions, unchanged code", target: "0 in 20", measured: "\(times) in 20",
            comparison: "the same runs: median, fastest and Mann-Whitney, measured again when they look slower")

        // Kiln's share: a warm kiln run (sandboxed, benchmarks only) against swift package
        // benchmark by hand in a warm clone, interleaved.
        let clone = work.url("benchmarks-clone")
        try command("/usr/bin/git", ["clone", "-q", repository, clone])
        let arguments = ["package", "--allow-writing-to-package-directory", "benchmark", "baseline", "update", "kiln", "--no-progress"]
        // Warm, as Kiln's workspace is: the debug build and the plugin's release build.
        try command("/usr/bin/env", ["swift", "build"], in: clone)
        try command("/usr/bin/env", ["swift"] + arguments, in: clone)
        var byHand: [Double] = []
        var withKiln: [Double] = []
        for _ in 0..<7 {
            byHand.append(
                try DependenciesBench.timed {
                    try command("/usr/bin/env", ["swift", "build"], in: clone)
                    try command("/usr/bin/env", ["swift"] + arguments, in: clone)
                })
            withKiln.append(try DependenciesBench.timed { try command(kiln, ["run", "lib"], in: home) })
        }
        // Each pair ran back to back: the median of their differences is steadier than the
        // difference of two medians on a machine whose speed drifts.
        let differences = zip(withKiln, byHand).map { $0 - $1 }.sorted()
        let (hand, kilnRun) = (byHand.sorted()[3], withKiln.sorted()[3])
        table.add(
            "Kiln's cost beyond swift package benchmark", target: "≤ 100 ms", measured: Measure.format(differences[3]),
            comparison:
                "median of 7 interleaved pairs' differences (from \(Measure.format(differences[0])) to \(Measure.format(differences[6]))); kiln run \(Measure.format(kilnRun)) (warm: build, benchmarks, default sandbox), by hand swift build + swift package benchmark baseline update \(Measure.format(hand)), medians"
        )
    }

    /// The package of the end-to-end test: `parse` measured by a package-benchmark target.
    private func package() throws -> String {
        let repository = work.url("benchmarks-package")
        try FileManager.default.createDirectory(atPath: repository + "/Sources/Lib", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repository + "/Benchmarks/Parse", withIntermediateDirectories: true)
        try """
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

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        try "public func parse(_ text: String) -> Int {\n    text.split(separator: \",\").reduce(0) { $0 + (Int($1) ?? 0) }\n}\n".write(
            toFile: repository + "/Sources/Lib/Lib.swift", atomically: false, encoding: .utf8)
        try """
        import Benchmark
        import Lib

        let benchmarks: @Sendable () -> Void = {
            Benchmark("Parse 1 KiB", configuration: .init(metrics: [.wallClock, .mallocCountTotal])) { benchmark in
                let text = (0..<200).map(String.init).joined(separator: ",")
                for _ in benchmark.scaledIterations { blackHole(parse(text)) }
            }
        }

        """.write(toFile: repository + "/Benchmarks/Parse/Parse.swift", atomically: false, encoding: .utf8)
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        try command("/usr/bin/git", ["init", "-q", "-b", "main"], in: repository)
        try command("/usr/bin/git", ["add", "-A"], in: repository)
        try command("/usr/bin/git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "package"], in: repository)
        return repository
    }
}
