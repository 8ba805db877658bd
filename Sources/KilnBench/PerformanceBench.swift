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

/// Performance: whether run-to-run noise on a loaded machine passes for a regression, and whether
/// a real 30 % slowdown is caught in the first integration that has it, with the bot's defaults
/// (`tolerance: 10%`, `baseline: 5`).
struct PerformanceBench {
    let kiln: String
    let work: Workspace

    static let unchanged = 20
    static let iterations = 1_000_000

    func run(into table: Table) async throws {
        let repository = work.url("performance-package")
        for directory in ["Sources/Lib", "Tests/LibTests"] {
            try FileManager.default.createDirectory(atPath: repository + "/" + directory, withIntermediateDirectories: true)
        }
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "Measured", targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])])

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        try "@inline(never) public func add(_ a: Int, _ b: Int) -> Int { a &+ b }\n".write(
            toFile: repository + "/Sources/Lib/Lib.swift", atomically: false, encoding: .utf8)
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        try measuring(Self.iterations, in: repository)
        try git(["init", "-q", "-b", "main"], in: repository)
        try commitAll(repository)
        let home = work.url("performance-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "repository: {url: '\(repository)'}\nperformance: {}\n".write(toFile: home + "/Bots/measured.yml", atomically: false, encoding: .utf8)

        // A loaded machine: one core kept busy throughout, as another build would.
        let load = Process()
        load.executableURL = URL(fileURLWithPath: "/bin/sh")
        load.arguments = ["-c", "while :; do :; done"]
        try load.run()
        defer {
            sendSignal(SIGKILL, to: load.processIdentifier)
            load.waitUntilExit()
        }
        var falseRegressions = 0
        var spread: [Double] = []
        for _ in 0..<Self.unchanged {
            let (status, output) = try kilnRun(in: home)
            if status != 0 || output.contains("performance regressions") { falseRegressions += 1 }
            if let median = try medianMeasured(home: home) { spread.append(median) }
        }
        try measuring(Self.iterations * 13 / 10, in: repository)
        try commitAll(repository)
        let (status, output) = try kilnRun(in: home)
        let caught = status == 1 && output.contains("performance regressions 1")
        let low = spread.min() ?? 0
        let high = spread.max() ?? 0
        table.add(
            "performance: false regressions, unchanged code on a loaded machine", target: "0 in \(Self.unchanged)",
            measured: "\(falseRegressions) in \(Self.unchanged)",
            comparison: String(
                format: "medians ranged %.1f–%.1f ms (%.0f %% apart) with one core kept busy", low * 1000, high * 1000,
                low > 0 ? (high / low - 1) * 100 : 0))
        table.add(
            "performance: a 30 % slowdown, caught in its first integration", target: "caught", measured: caught ? "caught" : "missed",
            comparison: output.split(separator: "\n").first { $0.contains("slower than") }.map(String.init) ?? "")
    }

    /// The test's `measure {}` of `iterations` calls.
    private func measuring(_ iterations: Int, in repository: String) throws {
        try """
        import Lib
        import XCTest

        final class SpeedTests: XCTestCase {
            func testSpeed() {
                measure {
                    var total = 0
                    for index in 0..<\(iterations) { total = add(total, index) }
                    XCTAssertNotEqual(total, 1)
                }
            }
        }

        """.write(toFile: repository + "/Tests/LibTests/SpeedTests.swift", atomically: false, encoding: .utf8)
    }

    /// The median of the latest integration's measurement, from XCTest's line in its log.
    private func medianMeasured(home: String) throws -> Double? {
        let log = try String(contentsOfFile: try latestLog(home: home), encoding: .utf8)
        guard let line = log.split(separator: "\n").first(where: { $0.contains("measured [Time, seconds]") }),
            let open = line.range(of: "values: ["), let close = line[open.upperBound...].firstIndex(of: "]")
        else { return nil }
        let values = line[open.upperBound..<close].split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        return values.isEmpty ? nil : values.sorted()[values.count / 2]
    }

    private func latestLog(home: String) throws -> String {
        let directory = home + "/.kiln/logs/measured"
        let numbers = try FileManager.default.contentsOfDirectory(atPath: directory).compactMap { Int($0.replacingOccurrences(of: ".log", with: "")) }
        guard let latest = numbers.max() else { throw BenchError.unexpected("no log in \(directory)") }
        return "\(directory)/\(latest).log"
    }

    /// `kiln run measured`: its exit status and output (a regression exits 1).
    private func kilnRun(in home: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: kiln)
        process.arguments = ["run", "measured"]
        process.currentDirectoryURL = URL(fileURLWithPath: home)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func commitAll(_ repository: String) throws {
        try git(["add", "-A"], in: repository)
        try git(["commit", "-q", "-m", "change"], in: repository)
    }

    private func git(_ arguments: [String], in directory: String) throws {
        _ = try command("/usr/bin/git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com"] + arguments, in: directory)
    }
}
