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

import KilnCore
import Testing

@Suite("Matrix: cells from axes and exclusions")
struct MatrixTests {
    @Test("Cells are every combination in the file's order, less the excluded, named by their values")
    func cells() {
        let matrix = Matrix(
            configurations: [.debug, .release], sanitizers: [.none, .thread], exclude: [Matrix.Exclusion(configuration: .release, sanitizer: .thread)]
        )
        #expect(matrix.cells.map(\.name) == ["default-debug-none", "default-debug-thread", "default-release-none"])
        #expect(Matrix(exclude: [Matrix.Exclusion(toolchain: "default")]).cells.isEmpty)
        #expect(Matrix().cells == [Cell()], "no axes: one cell, the bot as it is")
    }

    @Test("A bot runs in a cell with the cell's configuration and the sanitizer's arguments added to its own")
    func running() throws {
        let bot = try BotFile.decode(
            "repository: {url: https://example.com/app.git}\nbuild: {arguments: [-Xswiftc, -g]}\ntest: {arguments: [--parallel]}\nmatrix: {configuration: release, sanitizer: [address]}\n",
            file: "Bots/app.yml")
        let cell = try #require(bot.matrix?.cells.first)
        #expect(bot.matrix?.cells.count == 1 && cell.name == "default-release-address")
        let running = bot.running(in: cell)
        #expect(running.build.configuration == .release)
        #expect(running.build.arguments == ["-Xswiftc", "-g", "--sanitize=address"])
        #expect(running.test.arguments == ["--parallel", "--sanitize=address"])
        #expect(bot.running(in: Cell()) == bot.running(in: Cell()) && bot.running(in: Cell()).build.arguments == ["-Xswiftc", "-g"])
    }

    static func cell(_ name: String, _ result: IntegrationResult, reason: IntegrationReason? = nil) -> Integration {
        Integration(
            id: 0, bot: "app", number: -1, cause: .manual, commit: nil, branch: "main", step: .completed, result: result,
            queuedAt: .distantPast, reason: reason, cellOf: 1, cell: Cell(name: name))
    }

    @Test(
        "Cells' findings merged: the worst result of the cells that ran, an issue once with every cell it was in and everyone blamed, tests with their cell"
    )
    func merging() {
        let (alice, bob) = (
            Committer(name: "Alice", email: "alice@example.com", commit: "a"), Committer(name: "Bob", email: "bob@example.com", commit: "b")
        )
        let warning = IntegrationIssue(type: .warning, message: "unused", file: "A.swift", line: 1, fingerprint: "w", introducedBy: [alice])
        let race = IntegrationIssue(type: .sanitizer, message: "race", file: "A.swift", line: 2, fingerprint: "r", introducedBy: [bob])
        let test = TestCase(suite: "S", name: "t", status: .failed, duration: 0)
        let merged = IntegrationOutcome.merging(
            [
                CellOutcome(cell: Self.cell("default-debug-none", .warnings), issues: [warning], tests: [test]),
                CellOutcome(
                    cell: Self.cell("default-debug-thread", .testFailures),
                    issues: [warning, race].map {
                        var issue = $0; issue.introducedBy += [bob]; return issue
                    },
                    tests: [test]),
                CellOutcome(cell: Self.cell("6_2-debug-none", .canceled, reason: .noHost(toolchain: "6_2")), issues: [], tests: []),
            ], commits: [])
        #expect(merged.result == .testFailures, "a cell that could not run does not decide the result")
        #expect(merged.reason == .cells([.init(cell: "6_2-debug-none", reason: .noHost(toolchain: "6_2"))]))
        #expect(merged.issues.map(\.fingerprint) == ["w", "r"])
        #expect(merged.issues[0].cells == ["default-debug-none", "default-debug-thread"] && merged.issues[0].introducedBy == [alice, bob])
        #expect(merged.issues[1].cells == ["default-debug-thread"])
        #expect(merged.tests.map(\.cell) == ["default-debug-none", "default-debug-thread"])
        #expect(merged.summary[.testFailure] == 1, "one test failing in two cells is one failure")
        #expect(merged.cells == ["default-debug-none", "default-debug-thread", "6_2-debug-none"])
        #expect(IntegrationOutcome.merging([CellOutcome(cell: Self.cell("x", .canceled), issues: [], tests: [])], commits: []).result == .canceled)
    }

    @Test("A cell's name gives back its values; names that are no cell's give nil")
    func names() {
        let cell = Cell(toolchain: "6.2", configuration: .release, sanitizer: .address)
        #expect(Cell(name: cell.name) == cell)
        #expect(Cell(name: "6.2-release") == nil && Cell(name: "a-b-c") == nil && Cell(name: "nightly-main-debug-none") == nil)
    }
}
