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
import KilnPresentation
import KilnStore
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("A matrix: one integration, its cells at once on idle executors, results per cell")
struct MatrixServeTests {
    /// The racing package of `SanitizerTests`, with a test that fails only in release (and
    /// without `@testable`, which a release build does not allow).
    static func package() -> [String: String] {
        var files = SanitizerTests.package(racing: true)
        files["Tests/LibTests/LibTests.swift"] = """
            import XCTest
            import Lib

            final class CountTests: XCTestCase {
                func testCounts() { XCTAssertGreaterThan(count(), 0) }

                func testOptimized() {
                    #if !DEBUG
                        XCTFail("fails only in release")
                    #endif
                }
            }

            """
        files[".gitignore"] = ".build/\n"
        return files
    }

    @Test(
        "debug/release × none/thread less release+thread: three cells at once on three executors; the race is one sanitizer issue of the debug-thread cell, the release-only failure the release cell's alone"
    )
    func threeCells() async throws {
        let repo = try GitFixture()
        let racing = try repo.commit("Count on two threads", files: Self.package(), author: .bob)
        let served = try await ServedHome(
            bots: [
                "app": """
                repository: {url: '\(repo.url)'}
                schedule: {poll: 0}
                matrix:
                  configuration: [debug, release]
                  sanitizer: [none, thread]
                  exclude:
                    - {configuration: release, sanitizer: thread}

                """
            ],
            config: "executors: 3\n")
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        let store = try served.store()
        try await served.eventually("the matrix integration", timeout: .seconds(600)) {
            try await store.integration(bot: "app", number: 1)?.integration.step == .completed
        }
        let detail = try #require(try await store.integration(bot: "app", number: 1))
        #expect(detail.integration.result == .testFailures, "\(detail.integration)")
        #expect(try await served.integrations("app").map(\.number) == [1], "cells are not integrations of the bot's history")

        let cells = detail.cells
        #expect(cells.map(\.cell?.name) == ["default-debug-none", "default-debug-thread", "default-release-none"])
        // The race's captured variable is a compiler warning in every cell.
        #expect(cells.map(\.result) == [.warnings, .testFailures, .testFailures], "\(cells)")
        #expect(cells.allSatisfy { $0.swiftVersion?.contains("Swift version") == true }, "\(cells.map(\.swiftVersion))")
        // At once: every cell started before any ended, each in a workspace of its own.
        let lastStart = try #require(cells.compactMap(\.startedAt).max())
        let firstEnd = try #require(cells.compactMap(\.endedAt).min())
        #expect(cells.count == 3 && lastStart < firstEnd, "\(cells.map { ($0.cell, $0.startedAt, $0.endedAt) })")
        #expect(Set(cells.map { $0.workspaceSlot ?? 0 }).count == 3, "\(cells.map(\.workspaceSlot))")

        let race = try #require(detail.issues.first { $0.type == .sanitizer }, "\(detail.issues)")
        #expect(race.cells == ["default-debug-thread"] && race.file == "Sources/Lib/Lib.swift" && [6, 7].contains(race.line), "\(race)")
        #expect(race.introducedBy == [Committer(name: "Bob Builder", email: "bob@example.com", commit: racing)])
        let failure = try #require(detail.issues.first { $0.type == .testFailure }, "\(detail.issues)")
        #expect(failure.cells == ["default-release-none"] && failure.message.contains("fails only in release"), "\(failure)")
        // Found in all three cells, one issue that lists them.
        let warning = try #require(detail.issues.first { $0.type == .warning }, "\(detail.issues)")
        #expect(warning.cells == cells.compactMap(\.cell?.name) && warning.status == .new, "\(warning)")
        #expect(detail.issues.count == 3 && detail.integration.summary?[.warning] == 1, "\(detail.issues)")
        let counted = detail.tests.filter { $0.name.hasPrefix("testCounts") }
        #expect(
            Set(counted.compactMap(\.cell)) == Set(cells.compactMap(\.cell?.name)) && counted.allSatisfy { $0.status == .passed }, "\(detail.tests)")
        #expect(detail.tests.filter { $0.status == .failed }.map(\.cell) == ["default-release-none"], "\(detail.tests)")

        // As people see it: the JSON's cells, issues' cells and tests' cell, and each cell's log.
        let port = try await served.server.waitForPort()
        let (data, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/api/bots/app/integrations/1")))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let jsonCells = try #require(json["cells"] as? [[String: Any]], "\(json)")
        #expect(jsonCells.compactMap { $0["name"] as? String } == ["default-debug-none", "default-debug-thread", "default-release-none"])
        #expect(jsonCells.compactMap { $0["sanitizer"] as? String } == ["none", "thread", "none"])
        #expect(jsonCells.compactMap { $0["result"] as? String } == ["warnings", "test-failures", "test-failures"])
        let jsonIssues = try #require(json["issues"] as? [[String: Any]])
        #expect(
            Set(jsonIssues.compactMap { ($0["cells"] as? [String])?.joined(separator: " ") }) == [
                "default-debug-none default-debug-thread default-release-none", "default-debug-thread", "default-release-none",
            ])
        let jsonTests = try #require(json["tests"] as? [[String: Any]])
        #expect(jsonTests.filter { $0["status"] as? String == "failed" }.compactMap { $0["cell"] as? String } == ["default-release-none"])
        let log = try #require(jsonCells[1]["log"] as? String)
        let (logData, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)\(log)")))
        #expect(String(decoding: logData, as: UTF8.self).contains("ThreadSanitizer"), "\(log)")
        // The page: the cells, each issue's cells, and the failing tests against the cells.
        let (pageData, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/1")))
        let page = String(decoding: pageData, as: UTF8.self)
        #expect(page.contains("<h2>Cells</h2>") && page.contains("/bots/app/integrations/1/log?cell=default-debug-thread"), "\(page)")
        #expect(page.contains("(in default-debug-thread)") && page.contains("<h2>Failing tests by cell</h2>"), "\(page)")
        let (botData, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app")))
        let botPage = String(decoding: botData, as: UTF8.self)
        #expect(botPage.contains("title=\"default-release-none: test-failures\""))
        #expect(botPage.contains("aria-label=\"default-release-none: test-failures\""), "a square says what it is without a pointer")
        #expect(botPage.contains("in this order: default-debug-none, default-debug-thread, default-release-none;"), "the squares' legend")

        // Run failed tests again: the two cells that failed, not the one that passed; in the
        // release cell its failed test alone, in the sanitizer's cell (no test failed by name
        // there) all of them.
        let rerun = try await runProcess(Executables.kiln, ["trigger", "app", "--rerun", "1", "--failed"], in: served.home.path)
        #expect(rerun.standardOutput == "queued app #2, re-run of #1's failed tests\n", "\(rerun.standardOutput) \(rerun.standardError)")
        try await served.eventually("the re-run", timeout: .seconds(600)) {
            try await store.integration(bot: "app", number: 2)?.integration.step == .completed
        }
        let again = try #require(try await store.integration(bot: "app", number: 2))
        #expect(again.cells.map(\.cell?.name) == ["default-debug-thread", "default-release-none"], "\(again.cells)")
        #expect(again.integration.result == .testFailures && again.integration.commit == racing)
        let releaseTests = again.tests.filter { $0.cell == "default-release-none" }
        #expect(releaseTests.count == 1 && releaseTests.first?.status == .failed, "\(releaseTests)")
        let threadTests = { (tests: [TestCase]) in tests.filter { $0.cell == "default-debug-thread" }.count }
        #expect(threadTests(again.tests) == threadTests(detail.tests) && threadTests(again.tests) > 0, "\(again.tests)")
        #expect(again.issues.contains { $0.type == .sanitizer && $0.cells == ["default-debug-thread"] }, "the race again: \(again.issues)")
        _ = try await served.server.terminate()
    }

    /// A second toolchain that is this machine's compiler under another name: a folder whose
    /// `swift` says where it ran (in the log) and gives its own version.
    static func secondToolchain(in home: TemporaryDirectory) throws -> String {
        let swift = try #require(
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swift" }.first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "swift is not on PATH")
        try home.write(
            "toolchains/second/swift",
            """
            #!/bin/sh
            if [ "$1" = "--version" ]; then echo "Swift version 9.9-second (a wrapper)"; exit 0; fi
            echo "second toolchain: $1" >&2
            exec \(swift) "$@"

            """)
        let folder = home.url("toolchains/second")
        _ = chmod(folder + "/swift", 0o755)
        return folder
    }

    @Test(
        "Two toolchains of this host and one that no host offers: two cells run, each with its compiler and version; the third ends saying why, and kiln validate warned of it"
    )
    func toolchains() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let folder = try Self.secondToolchain(in: home)
        try home.write("kiln.yml", "toolchains: {second: '\(folder)'}\n")
        try home.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\nmatrix: {toolchain: [default, second, missing]}\n")
        try await home.seed(cells: ["default-debug-none"])

        let validated = try await runProcess(Executables.kiln, ["validate"], in: home.path)
        #expect(validated.status == 0, "a warning, not an error: \(validated.standardOutput)")
        #expect(
            validated.standardOutput.contains("Bots/app.yml:2:21: warning: this host offers no toolchain 'missing'"), "\(validated.standardOutput)")
        #expect(!validated.standardOutput.contains("toolchain 'second'"), "\(validated.standardOutput)")

        let run = try await home.kilnRun()
        let noHost = IntegrationReason.noHost(toolchain: "missing")
        #expect(run.status == 0 && run.output.contains("result: succeeded"), "\(run.output)")
        #expect(run.output.contains("cell missing-debug-none: canceled"), "\(run.output)")
        let detail = try await home.recorded(1)
        #expect(detail.integration.reason == .cells([.init(cell: "missing-debug-none", reason: noHost)]), "\(detail.integration)")
        let cells = detail.cells
        #expect(cells.map(\.result) == [.succeeded, .succeeded, .canceled], "\(cells)")
        #expect(cells[0].swiftVersion?.hasPrefix("Swift version 6.") == true && cells[1].swiftVersion == "Swift version 9.9-second (a wrapper)")
        #expect(cells[2].reason == noHost && cells[2].startedAt == nil && cells[2].swiftVersion == nil, "\(cells[2])")
        #expect(Set(detail.tests.compactMap(\.cell)) == ["default-debug-none", "second-debug-none"], "\(detail.tests)")

        // Each cell built with its own compiler, under the default sandbox.
        let store = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        let second = try #require(try await store.readLog(bot: "app", number: cells[1].number, from: 0, limit: 1 << 20))
        let first = try #require(try await store.readLog(bot: "app", number: cells[0].number, from: 0, limit: 1 << 20))
        #expect(String(decoding: second, as: UTF8.self).contains("second toolchain: build"))
        #expect(!String(decoding: first, as: UTF8.self).contains("second toolchain"))

        // One cell alone, by name; its toolchain replaced in place says its new version.
        let wrapper = try String(contentsOfFile: folder + "/swift", encoding: .utf8)
        try home.write("toolchains/second/swift", wrapper.replacingOccurrences(of: "9.9-second", with: "9.10-second"))
        _ = chmod(folder + "/swift", 0o755)
        let one = try await runProcess(Executables.kiln, ["run", "app", "--cell", "second-debug-none"], in: home.path)
        #expect(one.status == 0 && one.standardOutput.contains("cell second-debug-none: succeeded"), "\(one.standardOutput)")
        let alone = try await home.recorded(2).cells
        #expect(alone.map(\.cell?.name) == ["second-debug-none"] && alone.first?.swiftVersion == "Swift version 9.10-second (a wrapper)", "\(alone)")
        let wrong = try await runProcess(Executables.kiln, ["run", "app", "--cell", "default-release-none"], in: home.path)
        #expect(
            wrong.status == 1
                && wrong.standardError.contains(
                    "has no cell 'default-release-none': its cells are default-debug-none, second-debug-none, missing-debug-none"),
            "\(wrong.standardError)")
    }

    @Test("On PostgreSQL, two hosts of which one offers a second toolchain: that cell runs there, whichever host took the integration")
    func hostsWithToolchains() async throws {
        let url = try await PostgresServer.shared.database()
        let package = try FixturePackage()
        let bot = "repository: {url: '\(package.repository.url)'}\nschedule: {poll: 0}\nmatrix: {toolchain: [default, second]}\n"
        let plain = try await ServedHome(bots: ["app": bot], config: "executors: 1\ndatabase: {url: '\(url)'}\nhost: plain\n")
        let home = try TemporaryDirectory()
        let folder = try Self.secondToolchain(in: home)
        try home.write("kiln.yml", "executors: 1\ndatabase: {url: '\(url)'}\nhost: offering\ntoolchains: {second: '\(folder)'}\n")
        try home.write("Bots/app.yml", bot)
        let offering = ServedHome(
            home: home, server: try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path))
        _ = try await offering.server.waitForPort()
        for host in [plain.home, home] { try await host.seed(cells: ["default-debug-none"]) }
        let store = try await PostgresStore.open(DatabaseSettings(url: url), logsDirectory: nil)
        try await plain.eventually("both hosts heard") { try await store.hosts().count == 2 }

        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: plain.home.path)
        try await plain.eventually("the matrix integration", timeout: .seconds(600)) {
            try await store.integration(bot: "app", number: 1)?.integration.step == .completed
        }
        let detail = try #require(try await store.integration(bot: "app", number: 1))
        #expect(detail.integration.result == .succeeded, "\(detail.integration) \(detail.cells)")
        let cells = detail.cells
        #expect(cells.map(\.cell?.name) == ["default-debug-none", "second-debug-none"] && cells.allSatisfy { $0.result == .succeeded }, "\(cells)")
        #expect(cells.last?.host == "offering" && cells.last?.swiftVersion == "Swift version 9.9-second (a wrapper)", "\(cells)")
        _ = try await plain.server.terminate()
        _ = try await offering.server.terminate()
        store.close()
    }

    @Test("A failure only in release, among eight commits of four authors, is bisected in the release cell alone, to its commit")
    func bisectsFailingCells() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        // A release build allows no @testable import.
        try repo.commit(
            "Test the public API",
            files: [
                "Tests/LibTests/LibTests.swift": FixturePackage.xctests().replacingOccurrences(of: "@testable import", with: "import"),
                "Tests/LibSwiftTests/LibSwiftTests.swift": FixturePackage.swiftTests().replacingOccurrences(of: "@testable import", with: "import"),
            ])
        let served = try await ServedHome(
            bots: ["app": "repository: {url: '\(repo.url)'}\nschedule: {poll: 0}\nmatrix: {configuration: [debug, release]}\n"],
            config: "executors: 1\n")
        try await served.home.seed(cells: ["default-debug-none"])
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        try await served.eventually("the first integration", timeout: .seconds(300)) {
            try await served.integrations("app").first?.result == .succeeded
        }
        let carol = GitFixture.Author("Carol Coder", "carol@example.com")
        let dave = GitFixture.Author("Dave Dev", "dave@example.com")
        let culprit = try BisectionServeTests.commits(
            by: [.alice, .bob, dave, .alice, carol, .bob, dave, .alice], in: repo, changing: 4,
            to: "    #if !DEBUG\n        if a == 1 { return 0 }\n    #endif")[4]
        _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path)
        let store = try served.store()
        try await served.eventually("the pushed integration and its bisection", timeout: .seconds(600)) {
            guard let pushed = try await store.integration(bot: "app", number: 2)?.integration, pushed.step == .completed else { return false }
            return try await store.bisection(of: pushed.id).map { $0.state != .running } ?? false
        }
        let pushed = try #require(try await store.integration(bot: "app", number: 2))
        #expect(pushed.integration.result == .testFailures)
        #expect(!pushed.issues.isEmpty && pushed.issues.allSatisfy { $0.cells == ["default-release-none"] }, "\(pushed.issues)")
        let bisection = try #require(try await store.bisection(of: pushed.integration.id))
        #expect(bisection.state == .found && bisection.culprit == culprit, "\(bisection)")
        for number in bisection.integrations {
            let probe = try #require(try await store.integration(bot: "app", number: number))
            #expect(probe.cells.map(\.cell?.name) == ["default-release-none"], "bisect integration #\(number) ran \(probe.cells.map(\.cell))")
        }
        #expect(pushed.issues.allSatisfy { $0.introducedBy.map(\.email) == ["carol@example.com"] }, "\(pushed.issues)")
        _ = try await served.server.terminate()
    }
}
