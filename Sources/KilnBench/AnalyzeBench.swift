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

/// Analyze: what the analyzing step costs beyond the tools it runs (`swift format lint`,
/// `swift package diagnose-api-breaking-changes`), as `kiln run` with and without it.
struct AnalyzeBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        let repository = work.url("analyze-package")
        try FileManager.default.createDirectory(atPath: repository + "/Sources/Lib", withIntermediateDirectories: true)
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "Analyzed", products: [.library(name: "Lib", targets: ["Lib"])], targets: [.target(name: "Lib")])

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        try revision(0, in: repository)
        try Self.git(["init", "-q", "-b", "main"], in: repository)
        try commitAll(repository)
        let home = work.url("analyze-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        let bots = ["plain": "", "linted": "analyze: {lint: true}\n", "checked": "analyze: {api-breakage: true}\n"]
        for (name, analyze) in bots {
            try "repository: {url: '\(repository)'}\ntest: {enabled: false}\n\(analyze)".write(
                toFile: home + "/Bots/\(name).yml", atomically: false, encoding: .utf8)
            _ = try command(kiln, ["run", name], in: home)  // cold: builds once
        }
        try await lint(repository, home: home, into: table)
        try await apiBreakage(repository, home: home, into: table)
    }

    /// The library at its `number`th revision: the same API, a comment apart.
    private func revision(_ number: Int, in repository: String) throws {
        try "// revision \(number)\npublic func add(_ a: Int, _ b: Int) -> Int { a + b }\n".write(
            toFile: repository + "/Sources/Lib/Lib.swift", atomically: false, encoding: .utf8)
    }

    private func commitAll(_ repository: String) throws {
        try Self.git(["add", "-A"], in: repository)
        try Self.git(["commit", "-q", "-m", "change"], in: repository)
    }

    /// git as the bench's committer (SoundnessBench's too).
    static func git(_ arguments: [String], in directory: String) throws {
        _ = try command("/usr/bin/git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com"] + arguments, in: directory)
    }

    /// How long `body` took, in milliseconds.
    static func timed(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return Measure.milliseconds(ContinuousClock.now - start)
    }

    static func median(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.sorted()[values.count / 2] }

    /// `kiln run` of an unchanged commit with lint and without, against the linter alone.
    private func lint(_ repository: String, home: String, into table: Table) async throws {
        var (plain, linted, linter): ([Double], [Double], [Double]) = ([], [], [])
        for _ in 0..<7 {
            plain.append(try Self.timed { _ = try command(kiln, ["run", "plain"], in: home) })
            linted.append(try Self.timed { _ = try command(kiln, ["run", "linted"], in: home) })
            linter.append(
                try Self.timed { _ = try command("/usr/bin/env", ["swift", "format", "lint", "--recursive", "--parallel", "."], in: repository) })
        }
        let overhead = Self.median(linted) - Self.median(plain) - Self.median(linter)
        table.add(
            "analyze lint: Kiln's own cost beyond swift format lint", target: "< 100 ms", measured: Measure.format(overhead),
            comparison:
                "kiln run with lint \(Measure.format(Self.median(linted))), without \(Measure.format(Self.median(plain))), the linter alone \(Measure.format(Self.median(linter))); medians of 7"
        )
    }

    /// `kiln run` of a new commit with the API check and without, against SwiftPM's check alone
    /// (in the repository, built at that commit first, as the integration's build step has).
    private func apiBreakage(_ repository: String, home: String, into table: Table) async throws {
        var (plain, checked, check): ([Double], [Double], [Double]) = ([], [], [])
        for number in 1...5 {
            try revision(number, in: repository)
            try commitAll(repository)
            plain.append(try Self.timed { _ = try command(kiln, ["run", "plain"], in: home) })
            checked.append(try Self.timed { _ = try command(kiln, ["run", "checked"], in: home) })
            _ = try command("/usr/bin/env", ["swift", "build"], in: repository)
            check.append(
                try Self.timed { _ = try command("/usr/bin/env", ["swift", "package", "diagnose-api-breaking-changes", "HEAD~1"], in: repository) })
        }
        let overhead = Self.median(checked) - Self.median(plain) - Self.median(check)
        table.add(
            "analyze api-breakage: Kiln's own cost beyond SwiftPM's check", target: "< 100 ms", measured: Measure.format(overhead),
            comparison:
                "kiln run with the check \(Measure.format(Self.median(checked))), without \(Measure.format(Self.median(plain))), SwiftPM's check alone \(Measure.format(Self.median(check))); medians of 5"
        )
    }
}
