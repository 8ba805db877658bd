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
import KilnBuild
import KilnCore
import KilnGit

/// Patch coverage: what Kiln adds to a warm testing step with coverage on, on a real package
/// (swift-log, from the machine's copy): reading llvm-cov's export into each file's lines, the
/// change's lines from git, and the figure; against the testing step it rides on (a warm
/// `swift test --enable-code-coverage`), with llvm-cov's own export said apart.
struct CoverageBench {
    let work: Workspace

    func run(into table: Table) async throws {
        let repository = work.url("coverage-package")
        _ = try command("/usr/bin/git", ["clone", "-q", "--branch", "1.16.2", "https://github.com/apple/swift-log", repository])
        try AnalyzeBench.git(["checkout", "-q", "-b", "main"], in: repository)
        let base = try command("/usr/bin/git", ["rev-parse", "HEAD"], in: repository).trimmingCharacters(in: .whitespacesAndNewlines)
        // The change: a function added to Logging, one test of it aside.
        let source = repository + "/Sources/Logging/Logger.swift"
        let text = try String(contentsOfFile: source, encoding: .utf8)
        try
            (text
            + "\nextension Logger {\n    public func benchLevel(_ up: Bool) -> Int {\n        if up {\n            return 1\n        }\n        return 0\n    }\n}\n")
            .write(toFile: source, atomically: false, encoding: .utf8)
        try AnalyzeBench.git(["commit", "-q", "-am", "A change"], in: repository)
        let head = try command("/usr/bin/git", ["rev-parse", "HEAD"], in: repository).trimmingCharacters(in: .whitespacesAndNewlines)

        let test = ["swift", "test", "--enable-code-coverage"]
        _ = try command("/usr/bin/env", test, in: repository)  // cold: builds once
        var (testing, export, own): ([Double], [Double], [Double]) = ([], [], [])
        let codecov = repository + "/.build/debug/codecov"
        let exportFile = try FileManager.default.contentsOfDirectory(atPath: codecov).first { $0.hasSuffix(".json") }.map { "\(codecov)/\($0)" }
        let binary = try FileManager.default.contentsOfDirectory(atPath: repository + "/.build/debug").first { $0.hasSuffix("PackageTests.xctest") }
        guard let exportFile, let binary else { throw BenchError.unexpected("swift test --enable-code-coverage wrote no export in \(codecov)") }
        let mirrors = Mirrors(directory: work.url("coverage-mirrors"))
        let origin = Repository(url: try RepositoryURL(parsing: repository, relativeTo: "/"))
        _ = try await mirrors.update(origin)  // the mirror made once, as a host has it
        // the toolchain's llvm-cov, which reads its profiles (a distribution's may be older)
        let swift = try command("/usr/bin/env", ["which", "swift"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let llvmCov = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("llvm-cov").path
        var patch: PatchCoverage?
        for _ in 0..<5 {
            testing.append(try AnalyzeBench.timed { _ = try command("/usr/bin/env", test, in: repository) })
            export.append(
                try AnalyzeBench.timed {
                    _ = try command(
                        llvmCov,
                        ["export", "-instr-profile=\(codecov)/default.profdata", "\(repository)/.build/debug/\(binary)"], in: repository)
                })
            let start = ContinuousClock.now
            let lines = Coverage.read(exportAt: exportFile, root: repository)?.lines ?? LineCoverage()
            patch = PatchCoverage(changed: try await mirrors.changedLines(of: origin, base: base, head: head), lines: lines)
            own.append(Measure.milliseconds(ContinuousClock.now - start))
        }
        let share = AnalyzeBench.median(own) / AnalyzeBench.median(testing) * 100
        table.add(
            "patch coverage: Kiln's share of a warm testing step (swift-log)", target: "≤ 5 %", measured: String(format: "%.1f %%", share),
            comparison:
                "Kiln's reading of the export, the change's lines and the figure \(Measure.format(AnalyzeBench.median(own))) "
                + "(\(patch.map { "\($0.covered) of \($0.coverable) changed lines" } ?? "no figure")); the testing step, "
                + "swift test --enable-code-coverage warm, \(Measure.format(AnalyzeBench.median(testing))), of which llvm-cov's own export "
                + "(SwiftPM runs it whenever coverage is on, patch figure or not) about \(Measure.format(AnalyzeBench.median(export))); medians of 5")
    }
}
