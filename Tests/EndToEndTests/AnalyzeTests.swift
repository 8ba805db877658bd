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
        try await home.seed()

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
        #expect(second.output.contains("new analyzer warning (format): Sources/Lib/Lib.swift:2: [NeverForceUnwrap] do not force unwrap 'Int(\"1\")'"))
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

    /// The fixture with a library product (API breakage is checked for products) and `functions`.
    static func library(_ functions: [String]) -> [String: String] {
        let manifest = """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "Fixture",
                products: [.library(name: "Lib", targets: ["Lib"])],
                targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])]
            )

            """
        let body = ["public func add(_ a: Int, _ b: Int) -> Int { a + b }"] + functions.map { "public func \($0)(_ a: Int, _ b: Int) -> Int { a }" }
        return ["Package.swift": manifest, "Sources/Lib/Lib.swift": body.joined(separator: "\n\n") + "\n"]
    }

    @Test(
        "A public function removed is an API break: new and blamed on its remover, with where it was declared; error makes it a build error; a pull request's break is its own"
    )
    func apiBreakage() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        try repo.git("branch", "-m", "trunk")
        try repo.git("rm", "-q", "-r", "Tests/LibSwiftTests")
        try repo.commit("A library of three", files: Self.library(["sub", "mul"]))
        let bot = "repository: {url: '\(repo.url)', branch: trunk}\ntest: {enabled: false}\nanalyze: {api-breakage: %@}\n"
        try home.write("Bots/app.yml", bot.replacingOccurrences(of: "%@", with: "true"))
        try await home.seed()

        // 1. Nothing to compare with yet.
        let first = try await home.kilnRun()
        #expect(first.output.contains("result: succeeded"), "\(first.output)")
        #expect(try String(contentsOfFile: home.url(".kiln/logs/app/1.log"), encoding: .utf8).contains("API breakage not checked"))

        // 2. Bob removes sub(_:_:): his break, with where 1's commit declared it.
        let removed = try repo.commit("Drop sub", files: Self.library(["mul"]), author: .bob)
        let second = try await home.kilnRun()
        #expect(second.status == 0 && second.output.contains("result: analyzer-warnings"), "\(second.output)")
        let two = try await home.recorded(2)
        let broken = try #require(two.issues.first)
        #expect(two.issues.count == 1 && broken.type == .analyzerWarning && broken.status == .new, "\(two.issues)")
        #expect(broken.message.hasPrefix("Lib: func sub(_:_:) has been removed (declared at Sources/Lib/Lib.swift:3 in "), "\(broken.message)")
        #expect(broken.introducedBy == [Committer(name: "Bob Builder", email: "bob@example.com", commit: removed)])

        // 3. With api-breakage: error, Alice's removal of mul(_:_:) is a build error.
        try home.write("Bots/app.yml", bot.replacingOccurrences(of: "%@", with: "error"))
        try repo.commit("Drop mul too", files: Self.library([]))
        let third = try await home.kilnRun()
        #expect(third.status == 1 && third.output.contains("result: build-errors"), "\(third.output)")
        let three = try await home.recorded(3)
        let error = try #require(three.issues.first { $0.type == .error })
        #expect(error.message.hasPrefix("Lib: func mul(_:_:) has been removed") && error.introducedBy.map(\.name) == ["Alice Archer"])

        // 4. A pull request that removes add(_:_:) is compared with its base: the break is its own.
        try repo.git("checkout", "-q", "-b", "topic")
        let head = try repo.commit("Drop add", files: ["Sources/Lib/Lib.swift": "public func other() {}\n"], author: .bob)
        try repo.git("checkout", "-q", "trunk")
        try repo.git("update-ref", "refs/pull/2/head", head)
        let pull = try await runProcess(Executables.kiln, ["run", "app", "--pull", "2"], in: home.path)
        #expect(pull.standardOutput.contains("result: build-errors"), "\(pull.standardOutput)\(pull.standardError)")
        let four = try await home.recorded(4)
        #expect(four.issues.filter { $0.status == .new }.map(\.message).allSatisfy { $0.hasPrefix("Lib: func add(_:_:) has been removed") })
        #expect(four.issues.contains { $0.status == .new && $0.introducedBy.map(\.name) == ["Bob Builder"] }, "\(four.issues)")
    }

    @Test(
        "An API check that compared nothing (no library product, so SwiftPM checks no module) is an error saying why, never a clean result"
    )
    func apiBreakageUnchecked() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit("Two functions", files: ["Sources/Lib/Lib.swift": FixturePackage.library() + "\npublic func extra() {}\n"])
        try home.write("Bots/app.yml", "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\nanalyze: {api-breakage: true}\n")
        try await home.seed()
        let first = try await home.kilnRun()
        #expect(first.output.contains("result: succeeded"), "nothing to compare with yet: \(first.output)")

        try repo.commit("Drop extra", files: ["Sources/Lib/Lib.swift": FixturePackage.library()], author: .bob)
        let second = try await home.kilnRun()
        #expect(second.status == 1 && second.output.contains("result: build-errors"), "\(second.output)")
        let two = try await home.recorded(2)
        let error = try #require(two.issues.first { $0.type == .error }, "\(two.issues)")
        #expect(error.message.hasPrefix("API breakage not checked: ") && error.message.contains("declares none"), "\(error.message)")
        #expect(two.integration.summary?[.error] == 1)
    }

    @Test("A real package (swift-log, with its own .swift-format): a lint finding and an API break of one commit are new and its author's")
    func realPackage() async throws {
        let copy = "/opt/swift-packages/apple/swift-log.git"
        try #require(
            FileManager.default.fileExists(atPath: copy), "this test reads swift-log from the machine's package copies at \(copy)")
        let repo = try GitFixture()
        try repo.git("fetch", "-q", copy, "refs/tags/1.16.2")
        try repo.git("reset", "-q", "--hard", "FETCH_HEAD")
        let home = try TemporaryDirectory()
        try home.write("Bots/log.yml", "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\nanalyze: {lint: true, api-breakage: true}\n")
        let probe = "/// A function to take away again.\npublic func kilnProbe() -> Int {\n    1\n}\n"
        try repo.commit("Add a probe", files: ["Sources/Logging/KilnProbe.swift": probe])

        let first = try await home.kilnRun("log")
        #expect(first.output.contains("result: succeeded"), "swift-log lints clean with its own rules: \(first.output)")

        // Bob takes the probe away and writes a line swift-log's rules refuse.
        let bob = GitFixture.Author.bob
        let change = try repo.commit(
            "Rework the probe",
            files: ["Sources/Logging/KilnProbe.swift": "/// A value.\npublic let kilnValue = 1 ;\n"], author: bob)
        let second = try await home.kilnRun("log")
        #expect(second.output.contains("result: analyzer-warnings"), "\(second.output)")
        let two = try await home.recorded(2, of: "log")
        let new = two.issues.filter { $0.status == .new }
        #expect(new.allSatisfy { $0.type == .analyzerWarning } && new.count >= 2, "\(two.issues)")
        #expect(new.contains { $0.file == "Sources/Logging/KilnProbe.swift" && $0.line == 2 && $0.message.contains("[DoNotUseSemicolons]") })
        #expect(
            new.contains { $0.message.hasPrefix("Logging: func kilnProbe() has been removed (declared at Sources/Logging/KilnProbe.swift:2 in ") },
            "\(new.map(\.message))")
        #expect(new.allSatisfy { $0.introducedBy == [Committer(name: "Bob Builder", email: "bob@example.com", commit: change)] })
    }
}
