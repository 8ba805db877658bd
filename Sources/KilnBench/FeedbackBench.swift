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

/// Fast feedback (`test.order`, `test.fail-fast`): a package whose suite waits 60 s (sixty 1 s
/// sleeps: the wait, not the two cores, is the bound) beside one test that failed last time and
/// still fails. From the build's end (the testing step's start) to the forge stand-in receiving
/// the failure status, and the testing step's length, with `failed-first`, with `as-written`
/// (the failure read from the output as it streams), with `as-written` and `fail-fast: true`, and
/// the testing step's length with `shards: 4` against one `swift test`, and Kiln's own cost per
/// shard; then, the broken test mended, failed-first's cost on a suite where nothing fails
/// (its first pass runs the test that failed last time alone); and "Run failed tests again" on
/// a warm workspace against the whole integration. The bots on one server of four executors, one
/// at a time.
struct FeedbackBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        let home = work.url("feedback")
        let forgeDirectory = work.url("feedback-forge")
        for directory in [home + "/Bots", forgeDirectory] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let repository = try package()
        try "bench-token".write(toFile: home + "/token", atomically: false, encoding: .utf8)
        let forge = Process()
        forge.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        forge.arguments = ["Tests/Servers/forge_server.py", "--dir", forgeDirectory, "--token", "bench-token"]
        forge.standardInput = Pipe()
        forge.standardOutput = FileHandle.nullDevice
        try forge.run()
        defer { forge.terminate() }
        let forgePort = try await PullRequestBench.port(in: forgeDirectory)
        try "executors: 4\npublic-url: https://ci.example.com\n".write(toFile: home + "/kiln.yml", atomically: false, encoding: .utf8)
        let orders = ["failed-first", "as-written", "fail-fast", "shards"]
        let settings = [
            "failed-first": "order: failed-first", "as-written": "order: as-written", "fail-fast": "order: as-written, fail-fast: true",
            "shards": "order: as-written, shards: 4",
        ]
        for order in orders {
            let test = settings[order] ?? ""
            try """
            repository: {url: '\(repository)'}
            schedule: {poll: 0}
            test: {\(test)}
            forge: {kind: github, api-url: 'http://127.0.0.1:\(forgePort)', token-file: '\(home)/token'}

            """.write(toFile: home + "/Bots/\(order).yml", atomically: false, encoding: .utf8)
        }
        let server = try Server(kiln: kiln, home: home)
        defer { server.stop() }
        _ = try await server.port()
        let store = try SQLiteStore.open(dataDirectory: home + "/.kiln")
        // #1 of each: the test fails for the first time (no order can know it yet).
        for order in orders { _ = try await integrate(order, number: 1, store: store) }
        try "more words\n".write(toFile: repository + "/README.md", atomically: false, encoding: .utf8)
        try command("/usr/bin/git", ["add", "-A"], in: repository)
        try command("/usr/bin/git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "Words"], in: repository)
        let head = try command("/usr/bin/git", ["rev-parse", "HEAD"], in: repository).trimmingCharacters(in: .whitespacesAndNewlines)
        var figures: [String: (toFailure: Double, testing: Double)] = [:]
        var shardCost: (perShard: Double, shards: Int)?
        for order in orders {
            let detail = try await integrate(order, number: 2, store: store)
            let testing = try Self.testing(detail)
            let received = try await Self.firstFailure(of: head, context: "kiln/\(order)", in: forgeDirectory)
            figures[order] = (received - testing.startedAt.timeIntervalSince1970, testing.duration ?? 0)
            if order == "shards", !detail.integration.shards.isEmpty {
                // each shard's wall time beyond the tests it ran: the binary's start, its listing, Kiln's reading
                let beyond = detail.integration.shards.map(\.duration).reduce(0, +) - detail.tests.map(\.duration).reduce(0, +)
                shardCost = (beyond / Double(detail.integration.shards.count), detail.integration.shards.count)
            }
        }
        if let sharded = figures["shards"], let plain = figures["as-written"] {
            table.add(
                "testing step with test.shards: 4, against one swift test", target: "≤ 0.35×",
                measured: String(format: "%.2f×", sharded.testing / plain.testing),
                comparison: String(
                    format: "%.1f s against %.1f s: the 60 s suite split in 4 by the last integration's durations, on 4 idle executors",
                    sharded.testing, plain.testing))
        }
        if let shardCost {
            table.add(
                "cost per shard beyond the tests it runs", target: "≤ 100 ms", measured: Measure.format(shardCost.perShard * 1000),
                comparison: "\(shardCost.shards) shards: their wall time less their tests' durations, the test binary's start and listing included")
        }
        // "Run failed tests again" (`kiln trigger --rerun N --failed`, as the page's button does)
        // on as-written's #2, whose workspace is warm: its failed test alone, against #2 whole.
        let whole = try await integrate("as-written", number: 2, store: store, trigger: false)
        let again = try await integrate("as-written", number: 3, store: store, arguments: ["--rerun", "2", "--failed"])
        guard again.integration.rerunOf != nil, again.tests.count == 1, let rerun = again.integration.duration, let first = whole.integration.duration
        else { throw BenchError.unexpected("the re-run of as-written #2's failed test ran \(again.tests.count) tests") }
        table.add(
            "run failed tests again, warm workspace, of the whole integration's wall time", target: "≤ 10 %",
            measured: String(format: "%.1f %%", rerun / first * 100),
            comparison: String(format: "%.2f s against %.1f s: the 1 failed test again, against the 60 s suite and it", rerun, first))
        // The broken test mended: failed-first runs it alone first (it failed last time), then the rest.
        try
            "import XCTest\n@testable import Lib\n\nfinal class BrokenTests: XCTestCase {\n    func testBroken() { XCTAssertEqual(add(1, 2), 3) }\n}\n"
            .write(toFile: repository + "/Tests/LibTests/BrokenTests.swift", atomically: false, encoding: .utf8)
        try command("/usr/bin/git", ["add", "-A"], in: repository)
        try command("/usr/bin/git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "Mend"], in: repository)
        let mended = (
            failedFirst: try Self.testing(try await integrate("failed-first", number: 3, store: store)).duration ?? 0,
            asWritten: try Self.testing(try await integrate("as-written", number: 4, store: store)).duration ?? 0
        )
        table.add(
            "failed-first's cost where nothing fails, of the testing step", target: "≤ 3 %",
            measured: String(format: "%+.1f %%", (mended.failedFirst / mended.asWritten - 1) * 100),
            comparison: String(
                format: "%.2f s against %.2f s as written: the test that failed last time alone first, then the 60 s rest",
                mended.failedFirst, mended.asWritten))
        for order in orders where order != "shards" {
            guard let figure = figures[order] else { continue }
            let setting = "test." + (settings[order] ?? "").replacingOccurrences(of: ", ", with: ", test.")
            table.add(
                "build's end to the failure status at the forge, \(setting)", target: order == "as-written" ? "—" : "≤ 5 s",
                measured: figure.toFailure < 10 ? Measure.format(figure.toFailure * 1000) : String(format: "%.1f s", figure.toFailure),
                comparison: String(format: "a 60 s suite (sixty 1 s sleeps) and 1 test that failed last time; testing took %.1f s", figure.testing))
        }
    }

    /// An integration's testing step.
    static func testing(_ detail: IntegrationDetail) throws -> StepTiming {
        guard let testing = detail.steps.first(where: { $0.name == .testing }) else {
            throw BenchError.unexpected("\(detail.integration.bot) #\(detail.integration.number) has no testing step")
        }
        return testing
    }

    /// Triggers `bot` (with `arguments`; not at all when `trigger` is false) and waits for
    /// integration `number` to end.
    private func integrate(
        _ bot: String, number: Int, store: SQLiteStore, trigger: Bool = true, arguments: [String] = []
    ) async throws -> IntegrationDetail {
        if trigger { _ = try command(kiln, ["trigger", bot] + arguments, in: work.url("feedback")) }
        return try await Self.ended(bot, number: number, in: store)
    }

    /// Integration `number` of `bot` once it has ended, as `store` has it (5 minutes at most).
    static func ended(_ bot: String, number: Int, in store: any IntegrationRecords) async throws -> IntegrationDetail {
        for _ in 0..<6000 {
            if let detail = try await store.integration(bot: bot, number: number), detail.integration.step == .completed { return detail }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchError.unexpected("\(bot) #\(number) did not end within 5 minutes")
    }

    /// When the forge stand-in received the first `failure` status of `sha` in `context`.
    static func firstFailure(of sha: String, context: String, in directory: String) async throws -> Double {
        for _ in 0..<500 {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }) ?? []
            let received = names.compactMap { name -> Double? in
                guard let data = FileManager.default.contents(atPath: directory + "/" + name),
                    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], object["sha"] as? String == sha,
                    let body = object["body"] as? [String: Any], body["state"] as? String == "failure", body["context"] as? String == context
                else { return nil }
                return object["received"] as? Double
            }
            if let first = received.min() { return first }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchError.unexpected("no failure status of \(sha) in \(context) reached the forge stand-in")
    }

    /// The package: `SlowTests` sleeps 1 s in each of its 60 tests; `BrokenTests.testBroken` fails.
    func package(_ name: String = "feedback-package") throws -> String {
        let repository = work.url(name)
        for directory in ["Sources/Lib", "Tests/LibTests"] {
            try FileManager.default.createDirectory(atPath: repository + "/" + directory, withIntermediateDirectories: true)
        }
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "Feedback", targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])])

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        try "public func add(_ a: Int, _ b: Int) -> Int { a + b }\n".write(
            toFile: repository + "/Sources/Lib/Lib.swift", atomically: false, encoding: .utf8)
        let slow = (1...60).map { "    func testWaits\($0)() { Thread.sleep(forTimeInterval: 1) }" }.joined(separator: "\n")
        try """
        import Foundation
        import XCTest
        @testable import Lib

        final class SlowTests: XCTestCase {
        \(slow)
        }

        """.write(toFile: repository + "/Tests/LibTests/LibTests.swift", atomically: false, encoding: .utf8)
        try
            "import XCTest\n@testable import Lib\n\nfinal class BrokenTests: XCTestCase {\n    func testBroken() { XCTAssertEqual(add(1, 2), 4) }\n}\n"
            .write(toFile: repository + "/Tests/LibTests/BrokenTests.swift", atomically: false, encoding: .utf8)
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        try command("/usr/bin/git", ["init", "-q", "-b", "main", repository], in: work.url(""))
        try command("/usr/bin/git", ["add", "-A"], in: repository)
        try command("/usr/bin/git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "Package"], in: repository)
        return repository
    }
}
