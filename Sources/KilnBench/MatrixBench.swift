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
import KilnStore

/// A test matrix: Kiln's own cost per cell, and cells that wait running at once.
struct MatrixBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        let repository = try package()
        try perCell(repository, into: table)
        try await atOnce(repository, into: table)
    }

    /// A package whose one test waits 2 s: its cells are bound by waiting, not by the CPU.
    private func package() throws -> String {
        try work.libraryPackage(
            "matrix-package", name: "Matrix",
            tests: """
                import Foundation
                import XCTest
                @testable import Lib
                final class LibTests: XCTestCase {
                    func testWaits() {
                        if ProcessInfo.processInfo.environment["MATRIX_WAIT"] != nil { Thread.sleep(forTimeInterval: 2) }
                        XCTAssertEqual(add(1, 2), 3)
                    }
                }

                """)
    }

    /// Toolchains `t1`… that are the timing `swift` under other names, for cells that do the same work.
    private func toolchains(_ count: Int, like timer: SwiftTimer, in home: String) throws -> String {
        let script = try String(contentsOfFile: timer.swift, encoding: .utf8)
        var lines: [String] = []
        for index in 1...count {
            let folder = "\(home)/toolchains/t\(index)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try script.write(toFile: folder + "/swift", atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/swift")
            lines.append("t\(index): '\(folder)'")
        }
        return "toolchains: {\(lines.joined(separator: ", "))}\n"
    }

    /// `kiln run` of a warm bot with four cells (in turn, on one executor) against the same bot
    /// without a matrix: the time outside `swift build` and `swift test`, per cell. Unconfined,
    /// so that every cell's `swift` is the timing one.
    private func perCell(_ repository: String, into table: Table) throws {
        let home = work.url("matrix-cells")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        let timer = try SwiftTimer(in: work.url("matrix-timer"))
        try toolchains(3, like: timer, in: home).write(toFile: home + "/kiln.yml", atomically: false, encoding: .utf8)
        try "repository: {url: '\(repository)'}\nsandbox: none\n".write(toFile: home + "/Bots/plain.yml", atomically: false, encoding: .utf8)
        try "repository: {url: '\(repository)'}\nsandbox: none\nmatrix: {toolchain: [default, t1, t2, t3]}\n".write(
            toFile: home + "/Bots/cells.yml", atomically: false, encoding: .utf8)
        try command(kiln, ["run", "plain"], in: home, environment: timer.environment)
        try command(kiln, ["run", "cells"], in: home, environment: timer.environment)
        var plain: [SwiftTimer.Run] = []
        var cells: [SwiftTimer.Run] = []
        for _ in 0..<7 {
            plain.append(try timer.measure { try command(kiln, ["run", "plain"], in: home, environment: timer.environment) })
            cells.append(try timer.measure { try command(kiln, ["run", "cells"], in: home, environment: timer.environment) })
        }
        // Kiln runs each cell's test binary itself, where no timing `swift` sees it: its time by
        // hand comes off each cell.
        let direct = SwiftTimer.median(plain, \.test) == 0 ? try SwiftTimer.directTests(in: home + "/.kiln/workspaces/plain") : 0
        let (four, one) = (SwiftTimer.median(cells, \.outside) - 4 * direct, SwiftTimer.median(plain, \.outside) - direct)
        table.add(
            "Kiln's own cost per matrix cell", target: "≤ 50 ms", measured: Measure.format(four / 4),
            comparison:
                "kiln run of 4 warm cells in turn: \(Measure.format(four)) outside swift and the test binary, against \(Measure.format(one)) for the bot without a matrix; "
                + "each cell beyond the first \(Measure.format((four - one) / 3)); the test binary, run by hand: \(Measure.format(direct)); medians of \(cells.count)"
        )
    }

    /// `kiln serve` with four executors: an integration of four cells whose tests wait 2 s, from
    /// queued to completed, against the same bot's integration of one cell. Under the default
    /// sandbox, warm, interleaved.
    private func atOnce(_ repository: String, into table: Table) async throws {
        let home = work.url("matrix-serve")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        let timer = try SwiftTimer(in: work.url("matrix-serve-timer"))
        try ("executors: 4\n" + toolchains(3, like: timer, in: home)).write(toFile: home + "/kiln.yml", atomically: false, encoding: .utf8)
        let bot = "repository: {url: '\(repository)'}\nschedule: {poll: 0}\nenvironment: {MATRIX_WAIT: '1'}\n"
        try (bot + "matrix: {toolchain: [default]}\n").write(toFile: home + "/Bots/one.yml", atomically: false, encoding: .utf8)
        try (bot + "matrix: {toolchain: [default, t1, t2, t3]}\n").write(toFile: home + "/Bots/four.yml", atomically: false, encoding: .utf8)
        let server = try Server(kiln: kiln, home: home)
        defer { server.stop() }
        let store = try SQLiteStore.open(dataDirectory: home + "/.kiln")
        var lags: [Double] = []
        func integrate(_ bot: String) async throws -> Double {
            let queued = try command(kiln, ["trigger", bot], in: home)
            guard let number = queued.split(separator: "#").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
                throw BenchError.unexpected("kiln trigger said \(queued)")
            }
            let deadline = Date().addingTimeInterval(600)
            while Date() < deadline {
                if let done = try await store.integration(bot: bot, number: number)?.integration, done.step == .completed {
                    guard done.result == .succeeded, let ended = done.endedAt else {
                        throw BenchError.unexpected("\(bot) #\(number) ended \(done.result?.rawValue ?? "?"): \(done.reason?.code ?? "")")
                    }
                    // How long after the integration started its last cell did.
                    let cells = try await store.integration(bot: bot, number: number)?.cells ?? []
                    if cells.count > 1, let started = done.startedAt, let last = cells.compactMap(\.startedAt).max() {
                        lags.append(last.timeIntervalSince(started) * 1000)
                    }
                    return ended.timeIntervalSince(done.queuedAt) * 1000
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw BenchError.unexpected("\(bot) #\(number) did not end in 10 minutes")
        }
        // Every cell's workspace is built once first.
        _ = try await integrate("one")
        _ = try await integrate("four")
        var alone: [Double] = []
        var together: [Double] = []
        for _ in 0..<5 {
            alone.append(try await integrate("one"))
            together.append(try await integrate("four"))
        }
        let (single, four) = (alone.sorted()[alone.count / 2], together.sorted()[together.count / 2])
        // The same commands by hand in four warm clones, one alone and four at once: what two
        // cores give four builds, without Kiln.
        let workspaces = (0..<4).map { work.url("matrix-hand-\($0)") }
        var environment = ProcessInfo.processInfo.environment
        for workspace in workspaces {
            try command("/usr/bin/git", ["clone", "-q", repository, workspace])
            _ = try Self.byHand(in: [workspace], environment: environment)
        }
        environment["MATRIX_WAIT"] = "1"
        var handAlone: [Double] = []
        var handTogether: [Double] = []
        for _ in 0..<5 {
            handAlone.append(try Self.byHand(in: Array(workspaces.prefix(1)), environment: environment))
            handTogether.append(try Self.byHand(in: workspaces, environment: environment))
        }
        let (handSingle, handFour) = (handAlone.sorted()[handAlone.count / 2], handTogether.sorted()[handTogether.count / 2])
        table.add(
            "four wait-bound cells on four idle executors", target: "≤ 1.2× one cell", measured: String(format: "%.2f×", four / single),
            comparison:
                "queued to completed: 4 cells \(Measure.format(four)), 1 cell \(Measure.format(single)); the last cell started "
                + "\(Measure.format(lags.sorted()[lags.count / 2])) after its integration; by hand (swift build and test, unconfined) "
                + String(format: "%.2f× (%@ against %@)", handFour / handSingle, Measure.format(handFour), Measure.format(handSingle))
                + "; medians of \(alone.count), default sandbox")
    }

    /// `swift build --build-tests` then `swift test --skip-build` in each of `workspaces`, all at
    /// once; milliseconds until the last ends.
    static func byHand(in workspaces: [String], environment: [String: String]) throws -> Double {
        // xargs runs them at once and waits for them all: Foundation's `waitUntilExit` spins a
        // core on Linux, which would take it from the builds measured, and a shell's `wait` needs
        // SIGCHLD, which a child started from a Swift concurrency thread may have blocked.
        let start = ContinuousClock.now
        try command(
            "/usr/bin/xargs",
            [
                "-P", "\(workspaces.count)", "-I", "{}", "/bin/sh", "-c",
                "cd '{}' && swift build --build-tests -q >/dev/null && swift test --skip-build -q >/dev/null",
            ],
            input: Data(workspaces.joined(separator: "\n").utf8), environment: environment)
        return Measure.milliseconds(ContinuousClock.now - start)
    }
}
