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

@Suite("Store: a matrix's cells")
struct CellStoreTests {
    static let cells = Matrix(toolchains: ["default", "6.2"], configurations: [.debug, .release]).cells

    /// Integration 1 of `app`, claimed by host `h`, with its cells queued.
    static func started(_ test: TestStore) async throws -> Claim {
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "c1", branch: "main"), now: test.at(1))
        let matrix = try #require(try await test.store.claimNext(owner: "h 1 1", now: test.at(2)))
        try await test.store.addCells(cells, to: matrix, now: test.at(3))
        return matrix
    }

    @Test(
        "Cells are claimed first, beside their integration, each in a workspace of its own, only where their toolchain is; branch work waits; they are no part of the history",
        arguments: Engine.allCases)
    func claims(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let matrix = try await Self.started(test)
        // Queued before the cells, another bot's integration still comes after them; the bot's
        // own branch work waits for the whole matrix.
        _ = try await store.enqueue(QueueRequest(bot: "other", cause: .manual, commit: "o1", branch: "main"), now: test.at(0))
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "c2", branch: "main"), now: test.at(4))

        // The integration's own executor takes one, in its own workspace.
        let own = try #require(try await store.claimCell(of: matrix, owner: "h 1 1", toolchains: ["default"], now: test.at(5)))
        #expect(own.integration.cell?.name == "default-debug-none" && own.integration.cellOf == matrix.number && own.integration.workspaceSlot == 0)
        #expect(own.integration.commit == "c1" && own.integration.number < 0)
        // Other executors of a host with only `default` take the other default cell, in slot 1.
        let other = try #require(try await store.claimNext(owner: "h 1 2", toolchains: ["default"], now: test.at(6)))
        #expect(other.integration.cell?.name == "default-release-none" && other.integration.workspaceSlot == 1)
        // The 6.2 cells wait for a host that has 6.2; meanwhile other work runs.
        #expect(try await store.claimNext(owner: "h 1 3", toolchains: ["default"], now: test.at(7))?.bot == "other")
        let elsewhere = try #require(try await store.claimNext(owner: "g 1 1", toolchains: ["default", "6.2"], now: test.at(8)))
        #expect(elsewhere.integration.cell?.name == "6.2-debug-none" && elsewhere.integration.workspaceSlot == 0, "another host's first slot")

        // A toolchain no host offers: its queued cells end, saying so.
        #expect(try await store.endCellsWithoutHost(of: matrix, offered: ["default"], now: test.at(9)) == 1)
        var cells = try await store.cells(of: matrix)
        #expect(cells.map(\.cell) == Self.cells, "each cell read back typed, as it was queued")
        let missing = try #require(cells.last)
        #expect(missing.result == .canceled && missing.reason == .noHost(toolchain: "6.2"), "\(missing)")

        // Each cell's findings stay its own until the integration takes them.
        let warning = IntegrationIssue(type: .warning, message: "unused", file: "A.swift", line: 1, fingerprint: "w")
        let passed = TestCase(suite: "S", name: "t", status: .passed, duration: 0.1)
        // Each cell's patch coverage: lines 3–5 executable in debug, 3–6 in release (code under
        // `#if DEBUG` aside); debug's tests ran line 3, release's line 4, 6.2's nothing measured.
        let patches = [
            PatchCoverage(covered: 1, coverable: 3, files: [.init(path: "A.swift", covered: 1, coverable: 3, uncovered: [4, 5], lines: [3, 4, 5])]),
            PatchCoverage(
                covered: 1, coverable: 4, files: [.init(path: "A.swift", covered: 1, coverable: 4, uncovered: [3, 5, 6], lines: [3, 4, 5, 6])]),
        ]
        for (index, (claim, result)) in [(own, IntegrationResult.warnings), (other, .warnings), (elsewhere, .succeeded)].enumerated() {
            var outcome = IntegrationOutcome(result: result, tests: [passed], issues: result == .warnings ? [warning] : [])
            outcome.swiftVersion = "Swift version 6.3.1"
            outcome.patchCoverage = index < patches.count ? patches[index] : nil
            try await store.completeCell(claim, outcome: outcome, now: test.at(10))
        }
        cells = try await store.cells(of: matrix)
        #expect(cells.allSatisfy { $0.step == .completed } && cells.prefix(3).allSatisfy { $0.swiftVersion == "Swift version 6.3.1" })
        #expect(cells.prefix(2).map(\.patchCoverage) == patches, "each cell keeps its own figure")
        let found = try await store.cellOutcomes(of: matrix)
        #expect(found.map { $0.issues.count } == [1, 1, 0, 0] && found.map { $0.tests.count } == [1, 1, 1, 0])
        #expect(try await store.claimNext(owner: "h 1 2", now: test.at(11)) == nil, "the bot's next integration waits for the matrix")

        let completed = try await store.complete(matrix, outcome: .merging(found, commits: []), now: test.at(12))
        #expect(completed.result == .warnings && completed.summary?.tests == 3)
        // The integration's figure is the union: executable in either, run in either.
        let union = try #require(completed.patchCoverage)
        #expect(union.covered == 2 && union.coverable == 4 && union.files.map(\.uncovered) == [[5, 6]], "\(union)")
        let detail = try #require(try await store.integration(bot: "app", number: matrix.number))
        #expect(detail.issues.map(\.cells) == [["default-debug-none", "default-release-none"]])
        #expect(detail.tests.map(\.cell) == ["default-debug-none", "default-release-none", "6.2-debug-none"])
        #expect(detail.cells.count == 4)
        #expect(try await store.cellOutcomes(of: matrix).allSatisfy { $0.issues.isEmpty && $0.tests.isEmpty }, "moved to the integration")
        let history = try await store.integrations(bot: "app", limit: 10, before: nil)
        #expect(history.map(\.number) == [2, 1], "the cells are not in the bot's history: \(history.map(\.number))")
        #expect(try await store.testHistory(bot: "app", suite: "S", name: "t", limit: 10).runs.map(\.test.cell).count == 3)
        #expect(try await store.integrationsToNotify(limit: 10).allSatisfy { $0.cell == nil })
        #expect(try await store.claimNext(owner: "h 1 2", now: test.at(13))?.number == 2)
    }

    @Test("An integration that ends early ends its cells: the queued canceled, the running asked to stop", arguments: Engine.allCases)
    func endEarly(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let matrix = try await Self.started(test)
        let running = try #require(try await store.claimNext(owner: "h 1 2", now: test.at(4)))
        try await store.endCells(of: matrix, reason: .canceled, now: test.at(5))
        #expect(try await store.stopRequests(for: [running]).map(\.reason) == [.canceled])
        let cells = try await store.cells(of: matrix)
        #expect(cells.filter { $0.step == .completed }.allSatisfy { $0.result == .canceled && $0.reason == .canceled })
        #expect(cells.filter { $0.step == .completed }.count == 3)
    }

    @Test(
        "An integration that ends early ends its cells when it completes, though the ending of its cells was lost on the way",
        arguments: Engine.allCases)
    func completionEndsCells(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let matrix = try await Self.started(test)
        let running = try #require(try await store.claimNext(owner: "h 1 2", now: test.at(4)))
        // No endCells: the store was away when the integration's early end tried it.
        try await store.complete(matrix, outcome: IntegrationOutcome(result: .canceled, reason: .superseded(commit: "c2")), now: test.at(5))
        #expect(try await store.stopRequests(for: [running]).map(\.reason) == [.superseded(commit: "c2")])
        let cells = try await store.cells(of: matrix)
        #expect(cells.filter { $0.step == .completed }.count == 3, "the queued cells end with their integration: \(cells)")
        #expect(cells.filter { $0.step == .completed }.allSatisfy { $0.result == .canceled && $0.reason == .superseded(commit: "c2") })
        #expect(try await store.claimNext(owner: "h 1 3", now: test.at(6)) == nil, "no cell of an ended integration is claimed")
    }

    @Test("Retention expires a matrix's cells with their integration, and reads nothing of a bot within its limit", arguments: Engine.allCases)
    func retention(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let matrix = try await Self.started(test)
        for index in Self.cells.indices {
            let cell = try #require(try await test.store.claimCell(of: matrix, owner: "h 1 1", toolchains: ["default", "6.2"], now: test.at(4)))
            try await test.store.completeCell(cell, outcome: IntegrationOutcome(result: .succeeded), now: test.at(5 + Double(index)))
        }
        _ = try await test.store.complete(matrix, outcome: IntegrationOutcome(result: .succeeded), now: test.at(10))
        #expect(try await test.store.applyRetention(keep: 1, bot: "app") == 0, "the only integration is within the limit")
        for index in 0..<2 { _ = try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: 20 + Double(index)) }
        #expect(try await test.store.applyRetention(keep: 2, bot: nil) == 1 + Self.cells.count, "integration 1 and its cells")
        #expect(try await test.store.applyRetention(keep: 2, bot: nil) == 0, "already expired")
        #expect(try await test.store.integration(bot: "app", number: 2)?.integration.expired == false)
    }
}
