import Foundation
import KilnCore
import KilnStore
import KilnTestSupport
import Testing

@Suite("kiln run: the analyze step")
struct AnalyzeTests {
    /// The repository's own `.swift-format`: four spaces, and a rule swift-format leaves off by
    /// default, so that a finding of it proves the file was read.
    static let configuration = #"{"version": 1, "lineLength": 160, "indentation": {"spaces": 4}, "rules": {"NeverForceUnwrap": true}}"#

    @Test("Lint findings are analyzer warnings: new and blamed on the commit that brought them, resolved by the one that removes them")
    func lintFindings() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit("Lint with our rules", files: [".swift-format": Self.configuration + "\n"])
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\nanalyze: {lint: true}\n")

        // 1. A clean package: the step runs and finds nothing.
        let first = try await home.kilnRun()
        #expect(first.status == 0 && first.output.contains("result: succeeded"), "\(first.output)")
        let one = try await home.recorded(1)
        #expect(one.steps.map(\.name) == [.checkout, .beforeTriggers, .building, .analyzing, .processing])
        #expect(one.issues.isEmpty)
        let log = try String(contentsOfFile: home.url(".kiln/logs/app/1.log"), encoding: .utf8)
        #expect(log.contains("=== analyzing: swift format lint --recursive --parallel ."), "\(log)")

        // 2. Bob force-unwraps: a finding of the repository's own rule, his.
        let bob = GitFixture.Author.bob
        let unwrapped = try repo.commit(
            "Parse a constant", files: ["Sources/Lib/Lib.swift": FixturePackage.library(body: "    let one = Int(\"1\")!\n    _ = one")], author: bob)
        let second = try await home.kilnRun()
        #expect(second.status == 0, "analyzer warnings pass, like warnings: \(second.output)")
        #expect(second.output.contains("result: analyzer-warnings"), "\(second.output)")
        #expect(second.output.contains("analyzer warnings 1 (+1)"), "\(second.output)")
        #expect(second.output.contains("new analyzer-warning: Sources/Lib/Lib.swift:2: [NeverForceUnwrap] do not force unwrap 'Int(\"1\")'"))
        let two = try await home.recorded(2)
        #expect(two.integration.result == .analyzerWarnings)
        let finding = try #require(two.issues.first)
        #expect(two.issues.count == 1, "\(two.issues)")
        #expect(finding.type == .analyzerWarning && finding.status == .new && finding.file == "Sources/Lib/Lib.swift" && finding.line == 2)
        #expect(finding.introducedBy == [Committer(name: "Bob Builder", email: "bob@example.com", commit: unwrapped)])
        #expect(two.integration.summary?[.analyzerWarning] == 1 && two.integration.summary?.change(.analyzerWarning) == 1)

        // 3. Alice adds a line above it: the same finding, moved, is unresolved, not new.
        try repo.commit(
            "Document it", files: ["Sources/Lib/Lib.swift": FixturePackage.library(padding: 1, body: "    let one = Int(\"1\")!\n    _ = one")])
        let third = try await home.kilnRun()
        #expect(third.output.contains("result: analyzer-warnings"), "\(third.output)")
        let three = try await home.recorded(3)
        #expect(three.issues.map(\.status) == [.unresolved] && three.issues.first?.line == 3, "\(three.issues)")

        // 4. Alice removes the force unwrap: resolved, and the result is clean again.
        try repo.commit("Add without parsing", files: ["Sources/Lib/Lib.swift": FixturePackage.library(padding: 1)])
        let fourth = try await home.kilnRun()
        #expect(fourth.output.contains("result: succeeded"), "\(fourth.output)")
        let four = try await home.recorded(4)
        #expect(four.issues.map(\.status) == [.resolved] && four.issues.first?.type == .analyzerWarning, "\(four.issues)")
        #expect(four.integration.summary?.change(.analyzerWarning) == -1)
    }

    @Test("api-breakage, not built yet, is refused with a sentence that says so, not silently skipped")
    func apiBreakageRefused() async throws {
        let home = try TemporaryDirectory()
        let repo = try ServerTests.quickRepository()
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\nanalyze: {lint: true, api-breakage: true}\n")
        let refused = try await runProcess(Executables.kiln, ["validate"], in: home.path)
        #expect(refused.status != 0)
        let said = refused.standardOutput + refused.standardError
        #expect(said.contains("app.yml:2:37: error: 'api-breakage' is not available in this version of kiln yet"), "\(said)")
    }
}
