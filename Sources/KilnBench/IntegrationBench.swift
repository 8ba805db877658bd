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
import KilnBuild

/// Integrations: Kiln's own overhead over running the same commands by hand, and log parsing speed.
struct IntegrationBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        try parsing(into: table)
        try await overhead(into: table)
        try await coldOverhead(into: table)
    }

    /// A 50 MiB build log, one diagnostic in a hundred lines, through the diagnostics parser.
    private func parsing(into table: Table) throws {
        var chunk = ""
        for index in 0..<99 {
            chunk += "[\(index)/500] Compiling App File\(index).swift and some more text to make a realistic line of output\n"
        }
        var log = ""
        log.reserveCapacity(52 * 1024 * 1024)
        var chunks = 0
        while log.utf8.count < 50 * 1024 * 1024 {
            log += chunk
            log += "/work/app/Sources/App/File\(chunks).swift:\(chunks % 400 + 1):7: warning: variable 'x' was never mutated; consider 'let'\n"
            chunks += 1
        }
        let start = ContinuousClock.now
        let diagnostics = DiagnosticParser.parse(log, root: "/work/app")
        let elapsed = Measure.milliseconds(ContinuousClock.now - start)
        guard diagnostics.count == chunks else { throw BenchError.unexpected("parsed \(diagnostics.count) of \(chunks) diagnostics") }
        table.add("parsing a 50 MiB build log", target: "< 1 s", measured: Measure.format(elapsed), comparison: "diagnostics parser")
    }

    /// `kiln run` on a warm workspace with no new commit, against `swift build --build-tests` and
    /// `swift test --skip-build` run by hand in the same workspace.
    private func overhead(into table: Table) async throws {
        let repository = try warmPackage()
        let home = work.url("kiln-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        // Unconfined, so that the timing `swift` in /tmp is the one it runs; `boxed` is the same
        // bot under the default sandbox, timed whole.
        try "repository: {url: '\(repository)'}\nsandbox: none\n".write(toFile: home + "/Bots/bench.yml", atomically: false, encoding: .utf8)
        try "repository: {url: '\(repository)'}\n".write(toFile: home + "/Bots/boxed.yml", atomically: false, encoding: .utf8)
        try command(kiln, ["run", "bench"], in: home)  // cold: builds everything once
        try command(kiln, ["run", "boxed"], in: home)

        // Each side runs once unmeasured first: SwiftPM evaluates the manifest again when the
        // environment changes, and Kiln's builds have an environment of their own.
        let timer = try SwiftTimer(in: work.url("swift-timer"))
        let workspace = home + "/.kiln/workspaces/bench"
        // Spawned directly on both sides: Foundation's `Process` adds up to 50 ms a command here.
        let kiln = URL(fileURLWithPath: kiln).standardizedFileURL.path
        let byHand = {
            _ = try Measure.spawn([timer.swift, "build", "-c", "debug", "--build-tests"], in: workspace, environment: timer.environment)
            _ = try Measure.spawn([timer.swift, "test", "--skip-build", "-c", "debug"], in: workspace, environment: timer.environment)
        }
        var kilnRuns: [SwiftTimer.Run] = []
        var handRuns: [SwiftTimer.Run] = []
        var boxedRuns: [SwiftTimer.Run] = []
        for run in 0...7 {
            let measured = try timer.measure { _ = try Measure.spawn([kiln, "run", "bench"], in: home, environment: timer.environment) }
            if run > 0 { kilnRuns.append(measured) }
            let boxed = try timer.measureTotal { _ = try Measure.spawn([kiln, "run", "boxed"], in: home, environment: timer.environment) }
            if run > 0 { boxedRuns.append(boxed) }
        }
        for run in 0...7 {
            let measured = try timer.measure(byHand)
            if run > 0 { handRuns.append(measured) }
        }
        let direct = try SwiftTimer.directTests(in: workspace)
        table.add(
            "Kiln's overhead, warm workspace, no new commit", target: "< 150 ms", measured: SwiftTimer.overhead(kilnRuns, handRuns, direct: direct),
            comparison: SwiftTimer.comparison(kilnRuns, handRuns, kiln: "kiln run", byHand: "by hand", direct: direct))
        Self.sandboxCost("warm integration", boxed: boxedRuns, open: kilnRuns, into: table)
    }

    /// The default sandbox's cost: `kiln run` of the same bot under bubblewrap and with `sandbox: none`.
    static func sandboxCost(_ what: String, boxed: [SwiftTimer.Run], open: [SwiftTimer.Run], into table: Table) {
        let (withSandbox, without) = (SwiftTimer.median(boxed, \.total), SwiftTimer.median(open, \.total))
        table.add(
            "the default sandbox's cost, \(what)", target: "< 20 ms", measured: Measure.format(withSandbox - without),
            comparison:
                "kiln run under bubblewrap \(Measure.format(withSandbox)), with sandbox: none \(Measure.format(without)); medians of \(boxed.count)")
    }

    /// `kiln run` on a fresh data directory (first clone, empty workspace) of a package with 120
    /// XCTests and no dependencies, against `git clone` and the same `swift build --build-tests`
    /// and `swift test` by hand in a fresh clone. `KILN_BENCH_PACKAGE` names another git
    /// repository to measure instead (such as a clone of a real third-party package).
    ///
    /// Nine interleaved pairs (or as many as `KILN_BENCH_COLD_PAIRS` says), each side first in
    /// every other one, so that a slower minute of the machine falls on both sides; the cold
    /// build's own cost under Kiln is the median of the pairs' ratios (medians of five runs a side
    /// moved by ±4 % between runs of one binary).
    private func coldOverhead(into table: Table) async throws {
        let (repository, label) = try coldPackage()
        let git = "/usr/bin/git"
        let branch = try command(git, ["-C", repository, "rev-parse", "--abbrev-ref", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let home = work.url("kiln-cold")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "repository: {url: '\(repository)', branch: \(branch)}\nsandbox: none\n".write(
            toFile: home + "/Bots/cold.yml", atomically: false, encoding: .utf8)
        let timer = try SwiftTimer(in: work.url("swift-timer"))
        var clone = ""
        var kilnRuns: [SwiftTimer.Run] = []
        var handRuns: [SwiftTimer.Run] = []
        let pairs = ProcessInfo.processInfo.environment["KILN_BENCH_COLD_PAIRS"].flatMap { Int($0) }.map { max($0, 1) } ?? 9
        for index in 0..<pairs {
            let measureKiln = {
                try? FileManager.default.removeItem(atPath: home + "/.kiln")
                var answered = 0.0
                var run = try timer.measure { answered = try timeToAnswer(kiln, ["run", "cold"], in: home, environment: timer.environment) }
                run.answered = answered
                kilnRuns.append(run)
            }
            // A new directory each time, as a user's fresh clone is: SwiftPM's manifest cache is
            // keyed by the manifest's path, and a first integration's workspace is new.
            let measureByHand = {
                try? FileManager.default.removeItem(atPath: clone)
                clone = work.url("cold-clone-\(index)")
                handRuns.append(
                    try timer.measure {
                        try command(git, ["clone", "-q", repository, clone])
                        try command(timer.swift, ["build", "-c", "debug", "--build-tests"], in: clone)
                        _ = try? command(timer.swift, ["test", "--skip-build", "-c", "debug"], in: clone)
                    })
            }
            // Each side first in every other pair, so that what one run leaves to the next (the
            // disk's writeback, a warmer page cache) falls on both.
            if index.isMultiple(of: 2) {
                try measureKiln()
                try measureByHand()
            } else {
                try measureByHand()
                try measureKiln()
            }
        }
        // To `kiln run`'s answer (its result line): the snapshot of the cold build is packed
        // after it, at the lowest priority, and the command exits once it is.
        let toAnswer = kilnRuns.map { SwiftTimer.Run(total: $0.answered ?? $0.total, build: $0.build, test: $0.test) }
        let packing = SwiftTimer.median(kilnRuns) { $0.total - ($0.answered ?? $0.total) }
        let direct = try SwiftTimer.directTests(in: clone)
        table.add(
            "Kiln's overhead, cold integration (\(label))", target: "≤ 100 ms", measured: SwiftTimer.overhead(toAnswer, handRuns, direct: direct),
            comparison: SwiftTimer.comparison(toAnswer, handRuns, kiln: "kiln run to its answer", byHand: "git clone", direct: direct)
                + "; the snapshot packed after the answer: \(Measure.format(packing)) more to the exit")
        let percent = { (ratio: Double) in String(format: "%+.1f %%", (ratio - 1) * 100) }
        let ratios = zip(kilnRuns, handRuns).filter { $0.1.build > 0 }.map { $0.0.build / $0.1.build }.sorted()
        let spread = ratios.isEmpty ? "" : "; pairs from \(percent(ratios[0])) to \(percent(ratios[ratios.count - 1]))"
        let median = ratios.isEmpty ? "n/a" : percent(ratios[ratios.count / 2])
        table.add(
            "the cold swift build under Kiln against by hand", target: "≤ +3 %", measured: median,
            comparison: "the median of \(ratios.count) interleaved pairs' ratios (swift build inside kiln run against in a fresh clone)\(spread)")
        // Its CPU time (the build's processes, user and system) beside: what the machine's minute
        // moves less than the wall time.
        let cpu = zip(kilnRuns, handRuns).filter { $0.1.buildCPU > 0 }.map { $0.0.buildCPU / $0.1.buildCPU }.sorted()
        if !cpu.isEmpty {
            table.add(
                "the cold swift build's CPU time under Kiln against by hand", target: "—", measured: percent(cpu[cpu.count / 2]),
                comparison:
                    "the median of \(cpu.count) pairs' ratios of user and system time; pairs from \(percent(cpu[0])) to \(percent(cpu[cpu.count - 1]))"
            )
        }
        // The sandbox's cost on a cold integration is `SandboxBench`'s: medians of five cold
        // builds on each side moved by ±7 % here, which that group's method does not.
    }

    /// The warm integrations' package: one XCTest, no dependencies; written once per bench run
    /// (the integration and limits groups both run it).
    func warmPackage() throws -> String {
        let repository = work.url("package")
        if FileManager.default.fileExists(atPath: repository + "/.git") { return repository }
        return try work.libraryPackage(
            "package", name: "Bench",
            tests: """
                import XCTest
                @testable import Lib
                final class LibTests: XCTestCase { func testAdd() { XCTAssertEqual(add(1, 2), 3) } }

                """)
    }

    /// The cold integration's package: `KILN_BENCH_PACKAGE`, or one written here.
    func coldPackage() throws -> (repository: String, label: String) {
        if let given = ProcessInfo.processInfo.environment["KILN_BENCH_PACKAGE"] {
            return (given, (given as NSString).lastPathComponent)
        }
        let git = "/usr/bin/git"
        let repository = work.url("cold-package")
        // The integration and sandbox groups both build it: written once per bench run.
        if FileManager.default.fileExists(atPath: repository + "/.git") { return (repository, "120 XCTests") }
        try FileManager.default.createDirectory(atPath: repository + "/Sources/Cold", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repository + "/Tests/ColdTests", withIntermediateDirectories: true)
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "Cold", targets: [.target(name: "Cold"), .testTarget(name: "ColdTests", dependencies: ["Cold"])])

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        var source = ""
        for index in 0..<40 { source += "public func value\(index)(_ x: Int) -> Int { x &* \(index + 1) &+ \(index) }\n" }
        try source.write(toFile: repository + "/Sources/Cold/Cold.swift", atomically: false, encoding: .utf8)
        for file in 0..<4 {
            var tests = "import XCTest\n@testable import Cold\n\nfinal class ColdTests\(file): XCTestCase {\n"
            for index in 0..<30 {
                tests += "    func test\(index)() { XCTAssertEqual(value\((file * 30 + index) % 40)(0), \((file * 30 + index) % 40)) }\n"
            }
            try (tests + "}\n").write(toFile: repository + "/Tests/ColdTests/ColdTests\(file).swift", atomically: false, encoding: .utf8)
        }
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        try command(git, ["init", "-q", "-b", "main"], in: repository)
        try command(git, ["add", "-A"], in: repository)
        try command(git, ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "package"], in: repository)
        return (repository, "120 XCTests")
    }
}
