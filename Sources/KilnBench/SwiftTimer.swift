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

/// A `swift` first on PATH that runs the real one and records how long each run took.
///
/// The same `swift build` of the same package varies by more than a second from one cold run to
/// the next on this machine, and `swift test` by a few hundred milliseconds, far more than the
/// overheads measured. So Kiln's overhead is the median time Kiln spends outside `swift build`
/// and `swift test` (starting, the store, fetch and checkout, parsing, the completion) minus the
/// median time by hand spends outside them (`git clone`, or nothing); the comparison shows the
/// two sides' `swift` medians, which would tell if Kiln made the commands themselves slower.
struct SwiftTimer {
    /// One measured run: all of it, and the parts inside `swift build` and `swift test`.
    struct Run {
        var total: Double
        var build: Double
        var test: Double
        /// When the command printed its answer, if that was timed.
        var answered: Double?
        /// The CPU time (user and system) of `swift build` and every process it ran, in milliseconds.
        var buildCPU: Double = 0
        var outside: Double { total - build - test }
    }

    static func median(_ runs: [Run], _ value: (Run) -> Double) -> Double {
        let sorted = runs.map(value).sorted()
        return sorted[sorted.count / 2]
    }

    /// Kiln's time outside the package's own processes less by hand's: `direct` is the test
    /// binary's time (`directTests`), taken out of the runs in which Kiln ran no `swift test`.
    static func overhead(_ kiln: [Run], _ byHand: [Run], direct: Double = 0) -> String {
        Measure.format(median(kiln) { $0.outside - ($0.test == 0 ? direct : 0) } - median(byHand, \.outside))
    }

    static func comparison(_ kiln: [Run], _ byHand: [Run], kiln kilnLabel: String, byHand handLabel: String, direct: Double = 0) -> String {
        func pair(_ value: (Run) -> Double) -> String { "\(Measure.format(median(kiln, value))) vs \(Measure.format(median(byHand, value)))" }
        let tests =
            direct > 0 && median(kiln, \.test) == 0
            ? "the tests: \(kilnLabel) runs the test binary itself (\(Measure.format(direct)) by hand), against swift test's \(Measure.format(median(byHand, \.test)))"
            : "swift test \(pair(\.test))"
        return "outside swift: \(kilnLabel) vs \(handLabel) \(pair(\.outside)); swift build \(pair(\.build)); \(tests); in all \(pair(\.total))"
    }

    let directory: String
    var swift: String { directory + "/swift" }
    var times: String { directory + "/times" }
    /// The benchmark's environment with the wrapper first on PATH.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = directory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }

    init(in directory: String) throws {
        self.directory = directory
        let real = try command("/usr/bin/env", ["which", "swift"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try """
        #!/bin/sh
        start=$(date +%s%N)
        '\(real)' "$@"
        status=$?
        end=$(date +%s%N)
        times > '\(times).cpu'
        echo "$1 $start $end $(tail -n 1 '\(times).cpu')" >> '\(times)'
        exit $status

        """.write(toFile: swift, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift)
    }

    /// Times `body`, and the `swift build` and `swift test` runs inside it.
    func measure(_ body: () throws -> Void) throws -> Run {
        try? FileManager.default.removeItem(atPath: times)
        let start = ContinuousClock.now
        try body()
        let total = Measure.milliseconds(ContinuousClock.now - start)
        let lines = ((try? String(contentsOfFile: times, encoding: .utf8)) ?? "").split(separator: "\n")
        var inside: [Substring: Double] = [:]
        var cpu: [Substring: Double] = [:]
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count == 5, let start = Double(fields[1]), let end = Double(fields[2]) else { continue }
            inside[fields[0], default: 0] += (end - start) / 1e6
            cpu[fields[0], default: 0] += (Self.seconds(fields[3]) + Self.seconds(fields[4])) * 1000
        }
        guard let build = inside["build"] else { throw BenchError.unexpected("no swift build ran through \(swift)") }
        // none when Kiln ran the test binary itself (`directTests` times that by hand)
        return Run(total: total, build: build, test: inside["test"] ?? 0, buildCPU: cpu["build"] ?? 0)
    }

    /// Seconds of a time as the shell's `times` writes it: `1m5.370000s`.
    static func seconds(_ text: Substring) -> Double {
        let parts = text.dropLast().split(separator: "m")
        guard parts.count == 2, let minutes = Double(parts[0]), let seconds = Double(parts[1]) else { return 0 }
        return minutes * 60 + seconds
    }

    /// Milliseconds of the test binary `workspace` built, run as Kiln runs it in place of
    /// `swift test` (XCTest's pass, then Swift Testing's): the median of `runs`. Kiln's own share
    /// leaves that out as it leaves `swift test` out, since no wrapper on PATH sees the binary.
    static func directTests(in workspace: String, runs: Int = 7) throws -> Double {
        let products = workspace + "/.build/debug"
        let names = try FileManager.default.contentsOfDirectory(atPath: products).filter { $0.hasSuffix("PackageTests.xctest") }
        guard names.count == 1, let name = names.first else { throw BenchError.unexpected("no single test binary in \(products)") }
        let binary = products + "/" + name
        var times: [Double] = []
        for _ in 0..<runs {
            // spawned directly, as Kiln spawns it: Foundation's `Process` adds up to 50 ms here;
            // Swift Testing's pass ends 69 where the binary has none of its tests
            let xctest = try Measure.spawn([binary], in: workspace, anyStatus: true)
            times.append(xctest + (try Measure.spawn([binary, "--testing-library", "swift-testing"], in: workspace, anyStatus: true)))
        }
        return times.sorted()[times.count / 2]
    }

    /// The whole time of `body` alone: for a sandboxed `kiln run`, whose builds cannot see this
    /// timer in /tmp.
    func measureTotal(_ body: () throws -> Void) throws -> Run {
        let start = ContinuousClock.now
        try body()
        return Run(total: Measure.milliseconds(ContinuousClock.now - start), build: 0, test: 0)
    }
}
