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

/// package-benchmark's benchmarks (`performance.benchmarks`), run through its SwiftPM plugin.
extension PackageBuild {
    /// `swift package benchmark` of `targets` (all when empty; only the benchmarks named in
    /// `only`, when given), in release as the plugin builds, saving a baseline named `kiln` in the
    /// workspace: what each benchmark × metric measured, with the benchmark's thresholds.
    public func benchmarks(_ targets: [String], only: [String] = [], commit: String?) async throws(ProcessError) -> (
        measurements: [BenchmarkResults.Measurement], end: ProcessEnd
    ) {
        let saved = workspace.directory + "/.benchmarkBaselines"
        // The last run's baseline, left in place, would be read as this run's measurements.
        for target in (try? FileManager.default.contentsOfDirectory(atPath: saved)) ?? [] {
            do {
                try StaleFile.remove("\(saved)/\(target)/\(BenchmarkResults.baselineName)")
            } catch {
                throw .cannotStart(command: "swift package benchmark", reason: error.description)
            }
        }
        var arguments = swiftPackage(["--allow-writing-to-package-directory", "benchmark", "baseline", "update", BenchmarkResults.baselineName])
        for target in targets { arguments += ["--target", target] }
        for name in only { arguments += ["--filter", "^\(NSRegularExpression.escapedPattern(for: name))$"] }
        arguments += ["--no-progress"]
        let end = try await workspace.run(StepCommand("swift", arguments), step: .testing, commit: commit)
        return (BenchmarkResults.read(package: workspace.directory), end)
    }

    /// Whether the package has package-benchmark targets (`Benchmarks/`).
    public var hasBenchmarks: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: workspace.directory + "/Benchmarks", isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
