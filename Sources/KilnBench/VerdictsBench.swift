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

/// Trusted verdicts: what re-running a failed test costs, and how many integrations and how much
/// time a bisection of eight commits takes on one executor and on three.
struct VerdictsBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        let repository = try package()
        try await rerun(repository, into: table)
        for executors in [1, 3] { try await bisect(repository, executors: executors, into: table) }
    }

    /// A package whose `testPlanned` takes its verdict from a plan file outside the workspace
    /// (so its bots say `sandbox: none`; each run pops a line,
    /// "fail" or "pass") and sleeps 200 ms, beside 40 tests that pass.
    private func package() throws -> String {
        let repository = work.url("verdicts-package")
        try FileManager.default.createDirectory(atPath: repository + "/Sources/Lib", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repository + "/Tests/LibTests", withIntermediateDirectories: true)
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "Verdicts", targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])])

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        try Self.library(broken: false).write(toFile: repository + "/Sources/Lib/Lib.swift", atomically: false, encoding: .utf8)
        var tests = """
            import Foundation
            import XCTest
            @testable import Lib

            final class PlannedTests: XCTestCase {
                func testPlanned() {
                    let path = "\(work.url("plan"))"
                    let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\\n")
                    try? lines.dropFirst().joined(separator: "\\n").write(toFile: path, atomically: true, encoding: .utf8)
                    Thread.sleep(forTimeInterval: 0.2)
                    XCTAssertNotEqual(lines.first, "fail")
                }
            }

            final class MathTests: XCTestCase {

            """
        for index in 0..<40 { tests += "    func test\(index)() { XCTAssertEqual(add(\(index), 1), \(index + 1)) }\n" }
        try (tests + "}\n").write(toFile: repository + "/Tests/LibTests/LibTests.swift", atomically: false, encoding: .utf8)
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        try git(["init", "-q", "-b", "main"], in: repository)
        try git(["add", "-A"], in: repository)
        try git(["commit", "-q", "-m", "package"], in: repository)
        return repository
    }

    static func library(broken: Bool) -> String {
        "public func add(_ a: Int, _ b: Int) -> Int {\(broken ? " if a == 7 { return 0 };" : "") return a + b }\n"
    }

    private func git(_ arguments: [String], in directory: String, author: String = "Bench") throws {
        _ = try command(
            "/usr/bin/git", ["-c", "user.name=\(author)", "-c", "user.email=\(author.lowercased())@example.com"] + arguments, in: directory)
    }

    /// `kiln run` with the planned test failing once (a re-run makes it flaky) against passing:
    /// the difference, less the test's own 200 ms, is what the re-run costs beyond the test.
    private func rerun(_ repository: String, into table: Table) async throws {
        let home = work.url("verdicts-rerun")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "repository: {url: '\(repository)'}\nsandbox: none\n".write(toFile: home + "/Bots/bench.yml", atomically: false, encoding: .utf8)
        let plan = work.url("plan")
        try "".write(toFile: plan, atomically: false, encoding: .utf8)
        _ = try command(kiln, ["run", "bench"], in: home)  // cold: builds once, and passes
        var passing: [Double] = []
        var flaky: [Double] = []
        for _ in 0..<7 {
            for fails in [false, true] {
                try (fails ? "fail" : "").write(toFile: plan, atomically: false, encoding: .utf8)
                let start = ContinuousClock.now
                let output = try command(kiln, ["run", "bench"], in: home)
                let elapsed = Measure.milliseconds(ContinuousClock.now - start)
                guard output.contains("result: succeeded"), output.contains("flaky: PlannedTests.testPlanned") == fails else {
                    throw BenchError.unexpected("kiln run did not end as expected:\n\(output)")
                }
                if fails { flaky.append(elapsed) } else { passing.append(elapsed) }
            }
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        table.add(
            "a flaky test's re-run, beyond the test's own time", target: "< 300 ms", measured: Measure.format(median(flaky) - median(passing) - 200),
            comparison:
                "kiln run with one flaky test \(Measure.format(median(flaky))) vs all passing \(Measure.format(median(passing))), medians of 7")
    }

    /// Eight commits by four authors, the fifth breaking one test in a file nobody touched:
    /// `kiln serve` with `executors` executors bisects it. Wall time from the push's integration
    /// ending to the culprit, against that integration's own time.
    private func bisect(_ source: String, executors: Int, into table: Table) async throws {
        let repository = work.url("verdicts-bisect-\(executors)")
        _ = try command("/usr/bin/git", ["clone", "-q", source, repository])
        let home = work.url("verdicts-home-\(executors)")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "executors: \(executors)\n".write(toFile: home + "/kiln.yml", atomically: false, encoding: .utf8)
        // Under the default sandbox, as users run: the planned test sees no plan there, and passes.
        try "repository: {url: '\(repository)'}\nschedule: {poll: 0}\n".write(toFile: home + "/Bots/bench.yml", atomically: false, encoding: .utf8)
        try "".write(toFile: work.url("plan"), atomically: false, encoding: .utf8)
        let server = try Server(kiln: kiln, home: home)
        defer { server.stop() }
        _ = try command(kiln, ["trigger", "bench"], in: home)
        try await server.waitUntilIdle(bots: 1, timeout: 300)
        for index in 1...8 {
            try "note \(index)\n".write(toFile: "\(repository)/note-\(index).md", atomically: false, encoding: .utf8)
            if index == 5 { try Self.library(broken: true).write(toFile: repository + "/Sources/Lib/Lib.swift", atomically: false, encoding: .utf8) }
            try git(["add", "-A"], in: repository)
            try git(["commit", "-q", "-m", "commit \(index)"], in: repository, author: ["Alice", "Bob", "Carol", "Dave"][(index - 1) % 4])
        }
        _ = try command(kiln, ["trigger", "bench"], in: home)
        let store = try SQLiteStore.open(dataDirectory: home + "/.kiln")
        let deadline = Date().addingTimeInterval(600)
        while Date() < deadline {
            if let pushed = try await store.integration(bot: "bench", number: 2)?.integration, pushed.step == .completed,
                let bisection = try await store.bisection(of: pushed.id), bisection.state != .running
            {
                guard bisection.state == .found, let ended = try await store.integration(bot: "bench", number: bisection.integrations.max() ?? 0),
                    let pushedTime = pushed.duration, let pushedEnd = pushed.endedAt, let end = ended.integration.endedAt
                else { throw BenchError.unexpected("the bisection did not find the commit: \(String(describing: bisection.failure))") }
                let wall = end.timeIntervalSince(pushedEnd)
                table.add(
                    "bisecting 8 commits, \(executors) executor\(executors == 1 ? "" : "s")",
                    target: executors == 1 ? "≤ 4 integrations" : "≤ 2 integrations' time",
                    measured: "\(bisection.integrations.count) integrations, \(Measure.format(wall * 1000))",
                    comparison: String(format: "%.1f× the pushed integration's %@", wall / pushedTime, Measure.format(pushedTime * 1000)))
                return
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw BenchError.unexpected("the bisection did not end within 10 minutes")
    }
}
