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

/// Patch coverage end to end: `kiln run` of a real package with `test.coverage`, a change of
/// three files, and `diff-cover` (Debian's package) as the judge of the figure.
@Suite("Patch coverage: how much of a change its tests ran")
struct PatchCoverageTests {
    /// The toolchain's own `llvm-cov`, beside the `swift` on the PATH (the system's may be older
    /// than the profiles it writes).
    static func llvmCov() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let swift = try #require(
            path.split(separator: ":").map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }, "swift on the PATH")
        let resolved = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent().path
        return resolved + "/llvm-cov"
    }

    @Test(
        "Of a change to three files (one with nothing executable), Kiln's patch figure and uncovered lines are diff-cover's on llvm-cov's lcov of the same build; kiln run, the JSON and the page say them"
    )
    func matchesDiffCover() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\nsandbox: none\ntest: {coverage: true, order: as-written}\n")
        let first = try await home.kilnRun()
        #expect(first.status == 0 && !first.output.contains("patch"), "nothing to compare the first with: \(first.output)")
        let base = try repo.head()

        // A tested change and an untested one in Lib.swift, a new file half tested, a README.
        let library =
            FixturePackage.library(body: "    let unused = a &* 0\n    _ = unused")
                + """

                public func subtract(_ a: Int, _ b: Int) -> Int {
                    if a < b {
                        return -(b - a)
                    }
                    return a - b
                }

                """
        let extra = """
            public func double(_ x: Int) -> Int {
                x * 2
            }

            public func triple(_ x: Int) -> Int {
                if x > 100 {
                    return 300
                }
                return x * 3
            }

            """
        let tests = """
            import XCTest
            @testable import Lib

            final class ExtraTests: XCTestCase {
                func testDoubles() { XCTAssertEqual(double(2), 4) }
                func testTriples() { XCTAssertEqual(triple(1), 3) }
            }

            """
        try repo.commit(
            "Subtract, double and triple",
            files: [
                "Sources/Lib/Lib.swift": library, "Sources/Lib/Extra.swift": extra, "Tests/LibTests/ExtraTests.swift": tests,
                "README.md": "How to add, subtract, double and triple.\n",
            ])
        let second = try await home.kilnRun()
        #expect(second.status == 0, "\(second.output)")
        let patch = try #require(try await home.recorded(2).integration.patchCoverage)

        // diff-cover on the lcov llvm-cov writes for the same build, against the same base.
        let workspace = home.url(".kiln/workspaces/app")
        let lcov = try await runProcess(
            try Self.llvmCov(),
            [
                "export", "-format=lcov", "-instr-profile", "\(workspace)/.build/debug/codecov/default.profdata",
                "\(workspace)/.build/debug/FixturePackageTests.xctest", "-ignore-filename-regex", "(\\.build|Tests)/",
            ])
        #expect(lcov.status == 0, "\(lcov.standardError)")
        let relative = lcov.standardOutput.replacingOccurrences(of: "SF:\(workspace)/", with: "SF:")
        let judge = try TemporaryDirectory("kiln-diff-cover")
        try judge.write("coverage.lcov", relative)
        let judged = try await runProcess(
            "/usr/bin/diff-cover", [judge.url("coverage.lcov"), "--compare-branch=\(base)", "--json-report", judge.url("report.json")], in: repo.path)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: judge.url("report.json")))) as? [String: Any],
            "\(judged.standardOutput) \(judged.standardError)")
        let stats = try #require(report["src_stats"] as? [String: [String: Any]])
        // diff-cover lists each file's uncovered lines and percentage, and the change's totals.
        let judgedFiles = stats.filter { !(($0.value["violation_lines"] as? [Int] ?? []).isEmpty && $0.value["percent_covered"] == nil) }
        #expect(patch.files.map(\.path) == judgedFiles.keys.sorted(), "\(report)")
        for file in patch.files {
            let judgedFile = stats[file.path] ?? [:]
            #expect(file.uncovered == (judgedFile["violation_lines"] as? [Int] ?? []).sorted(), "\(file.path): \(judgedFile)")
            let percent = Double(file.covered) / Double(file.coverable) * 100
            #expect(abs(percent - (judgedFile["percent_covered"] as? Double ?? -1)) < 0.01, "\(file.path): \(file) against \(judgedFile)")
        }
        #expect(patch.coverable == report["total_num_lines"] as? Int, "\(patch) against \(report)")
        #expect(patch.coverable - patch.covered == report["total_num_violations"] as? Int, "\(patch) against \(report)")
        #expect(patch.files.map(\.path) == ["Sources/Lib/Extra.swift", "Sources/Lib/Lib.swift"], "the README has nothing executable")
        #expect(patch.covered > 0 && patch.covered < patch.coverable, "some changed lines ran, some did not: \(patch)")

        // kiln run says it, with the lines no test ran.
        let percent = try #require(patch.percent)
        #expect(
            second.output.contains("patch \(String(format: "%.1f", percent)) % (\(patch.covered) of \(patch.coverable) changed lines)"),
            "\(second.output)")
        #expect(second.output.contains("not run: Sources/Lib/Lib.swift: 7–12"), "\(second.output)")

        // The JSON and the page of a server on the same data.
        let server = try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path)
        let port = try await server.waitForPort()
        let json = try await PullRequestTests.get("/api/bots/app/integrations/2", port: port)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let coverage = try #require(object?["coverage"] as? [String: Any], "\(json)")
        let patchJSON = try #require(coverage["patch"] as? [String: Any], "\(json)")
        #expect(patchJSON["covered"] as? Int == patch.covered && patchJSON["coverable"] as? Int == patch.coverable && coverage["percent"] is Double)
        let files = patchJSON["files"] as? [[String: Any]] ?? []
        #expect(files.first { $0["path"] as? String == "Sources/Lib/Lib.swift" }?["uncovered"] as? [Int] == [7, 8, 9, 10, 11, 12], "\(json)")
        #expect(files.allSatisfy { Set($0.keys) == ["path", "covered", "coverable", "uncovered"] }, "\(json)")
        let page = try await PullRequestTests.get("/bots/app/integrations/2", port: port)
        let view = "/bots/app/integrations/2/source/Sources/Lib/Lib.swift"
        #expect(
            page.contains("Change covered")
                && page.contains(#"<a href="\#(view)"><code>Sources/Lib/Lib.swift</code></a> 2 of 8, not run: <code>7–12</code>"#), "\(page)")
        // The file's view marks each executable line run or not, the change's apart; `add` is tested.
        let source = try await PullRequestTests.get(view, port: port)
        #expect(source.contains(#"<tr id="L2" class="ran changed">"#) && source.contains(#"<tr id="L4" class="ran">"#), "\(source)")
        #expect(
            source.contains(#"<tr id="L7" class="not-run changed">"#) && source.contains("not run by any test, changed in this integration"),
            "\(source)")
        #expect(source.contains(#"<tr id="L6"><td"#), "a blank line is not executable: \(source)")
        #expect(source.contains("Coverage: ") && source.contains("ran at this commit, 2 of the 8 changed"), "\(source)")
        // In Chromium: the file's view, the integration's figure and the bot's chart have no
        // serious axe-core violation, for a reader without a token or a member, and fit a phone.
        _ = try await BrowserTests.readers(of: [view, "/bots/app/integrations/2", "/bots/app"], home: home, port: port)
        // The bot page charts it: integration 2's change, the first had none to compare with.
        let botPage = try await PullRequestTests.get("/bots/app", port: port)
        let chart = try #require(botPage.components(separatedBy: "<figcaption>Change covered: ").dropFirst().first, "\(botPage)")
        #expect(
            chart.hasPrefix("<strong>\(Summary(coverage: percent).coverageText ?? "")</strong>") && chart.contains("#2: "), "\(chart.prefix(600))")
        _ = try await server.terminate()
    }

    @Test(
        "On a pull request, the coverage status fails below coverage.patch and passes once a test covers the change; a one-line change under min-lines never fails"
    )
    func status() async throws {
        let package = try FixturePackage()
        let repo = package.repository
        try repo.git("branch", "-m", "main")
        let forge = try await ForgeDouble.start()
        let tokens = try TemporaryDirectory()
        try tokens.write("token", forge.token)
        let bot =
            "repository: {url: '\(repo.url)', branch: main}\nschedule: {poll: 0}\npull-requests: true\n"
            + "test: {coverage: true, order: as-written}\ncoverage: {patch: 80, comments: true}\n"
            + "forge: {kind: github, api-url: '\(forge.apiURL)', token-file: '\(tokens.url("token"))', review: true}\n"
        let served = try await ServedHome(bots: ["app": bot])
        let port = try await served.server.waitForPort()
        #expect(try await runProcess(Executables.kiln, ["trigger", "app"], in: served.home.path).status == 0)
        try await served.eventually("the branch's integration", timeout: .seconds(180)) {
            try await served.integrations("app").first?.step == .completed
        }
        func propose(_ number: Int, _ files: [String: String]) async throws -> String {
            try repo.git("checkout", "-q", "-B", "topic-\(number)", "main")
            let head = try repo.commit("Change \(number)", files: files, author: .bob)
            try repo.git("checkout", "-q", "main")
            try repo.git("update-ref", "refs/pull/\(number)/head", head)
            var json =
                try JSONSerialization.jsonObject(with: try PullRequestTests.delivery("pull_request-opened", repository: repo.url, head: head))
                as? [String: Any] ?? [:]
            var pull = json["pull_request"] as? [String: Any] ?? [:]
            pull["number"] = number
            var base = pull["base"] as? [String: Any] ?? [:]
            base["ref"] = "main"
            pull["base"] = base
            json["pull_request"] = pull
            json["number"] = number
            #expect(try await PullRequestTests.post(try JSONSerialization.data(withJSONObject: json), port: port).status == 202)
            return head
        }
        func coverageStatus(_ head: String) async throws -> ForgeDouble.Call? {
            try await forge.waitForCalls(timeout: .seconds(240)) { $0.contains { $0.sha == head && $0.context == "kiln/app/coverage" } }
                .last { $0.sha == head && $0.context == "kiln/app/coverage" }
        }
        let subtract = """

            public func subtract(_ a: Int, _ b: Int) -> Int {
                if a < b {
                    return -(b - a)
                }
                return a - b
            }

            """
        let library = FixturePackage.library() + subtract

        // Untested: 0 of 6 lines, under 80 %.
        try forge.pullRequest(2, changes: (5...12).map { "Sources/Lib/Lib.swift:\($0)" })
        let untested = try await propose(2, ["Sources/Lib/Lib.swift": library])
        let failing = try #require(try await coverageStatus(untested))
        #expect(failing.state == "failure" && failing.description == "patch 0.0 % (0 of 6 changed lines), below 80 %", "\(failing)")
        #expect(failing.targetURL?.hasSuffix("/bots/app/integrations/2") == true)
        // The review's summary says it too, with the lines no test ran.
        let summary = "Coverage of this change: patch 0.0 % (0 of 6 changed lines); not run by any test:\n\n- `Sources/Lib/Lib.swift`: 6–11"
        try await served.eventually("the review's summary", timeout: .seconds(60)) {
            (try? forge.commentBodies().values.contains { $0.contains(summary) }) == true
        }
        // coverage.comments: the run of lines is one line comment over all six.
        let reviews = try forge.reviewCalls().filter { $0.method == "POST" && $0.path.hasSuffix("/pulls/2/reviews") && $0.code == 200 }
        let comments = reviews.flatMap { $0.body?["comments"] as? [[String: Any]] ?? [] }
        #expect(comments.count == 1, "\(comments)")
        let uncovered = try #require(comments.first)
        #expect(uncovered["path"] as? String == "Sources/Lib/Lib.swift" && uncovered["start_line"] as? Int == 6 && uncovered["line"] as? Int == 11)
        #expect((uncovered["body"] as? String ?? "").contains("no test runs lines 6–11 of this change"), "\(uncovered)")

        // The same change with its tests: covered, the status passes.
        let tests = """
            import XCTest
            @testable import Lib

            final class SubtractTests: XCTestCase {
                func testSubtracts() { XCTAssertEqual(subtract(5, 3), 2) }
                func testSubtractsBelowZero() { XCTAssertEqual(subtract(3, 5), -2) }
            }

            """
        let tested = try await propose(2, ["Sources/Lib/Lib.swift": library, "Tests/LibTests/SubtractTests.swift": tests])
        let passing = try #require(try await coverageStatus(tested))
        #expect(passing.state == "success" && passing.description == "patch 100.0 % (6 of 6 changed lines)", "\(passing)")
        // Run by a test now: the comment is resolved.
        try await served.eventually("the uncovered lines' comment resolved", timeout: .seconds(60)) {
            (try? forge.commentBodies().values.contains { $0.contains("no test runs lines 6–11") && $0.contains("is resolved in") }) == true
        }

        // One untested line: 0 %, but under min-lines (5) it informs only.
        let small = try await propose(3, ["Sources/Lib/Lib.swift": FixturePackage.library() + "\npublic func negate(_ x: Int) -> Int { -x }\n"])
        let informing = try #require(try await coverageStatus(small))
        #expect(
            informing.state == "success" && informing.description == "patch 0.0 % (0 of 1 changed line); under 5 lines, it fails nothing",
            "\(informing)")
        _ = try await served.server.terminate()
    }
}
