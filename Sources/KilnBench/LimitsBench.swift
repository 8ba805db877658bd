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

/// What the limits cost a warm integration: a control group made, joined and removed for each
/// step (kiln.yml's default `limits`, as every bot has them).
///
/// The same `kiln run` of a warm workspace, in back-to-back pairs of alternating order: once
/// where Kiln can make control groups, once where it cannot (the hierarchies read-only, so each
/// step's shell sets rlimits instead: the same shell, no group). Both run in one bubblewrap
/// whose root is read-only but for the data, the temporary files, HOME and (on the first side)
/// /sys/fs/cgroup, so that the two differ in the control groups alone. Each side's figure is
/// Kiln's time outside `swift` (`SwiftTimer`), since the build's own time moves by more than the
/// cost measured; the method's spread is the same pairs with both sides without groups.
struct LimitsBench {
    let kiln: String
    let work: Workspace
    static let pairs = 12

    func run(into table: Table) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/bwrap") else {
            throw BenchError.unexpected("bubblewrap is missing: apt-get install bubblewrap (make bench installs it)")
        }
        let repository = try IntegrationBench(kiln: kiln, work: work).warmPackage()
        let home = work.url("limits-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "repository: {url: '\(repository)'}\nsandbox: none\n".write(toFile: home + "/Bots/warm.yml", atomically: false, encoding: .utf8)
        let kiln = URL(fileURLWithPath: kiln).standardizedFileURL.path
        let writable = [work.path, "/tmp", NSHomeDirectory()]
        let withoutGroups =
            ["/usr/bin/bwrap", "--ro-bind", "/", "/"] + writable.flatMap { ["--bind", $0, $0] }
            + ["--dev", "/dev", "--proc", "/proc", "--die-with-parent", "--chdir", home, "--", kiln]
        var withGroups = withoutGroups
        withGroups.insert(contentsOf: ["--bind", "/sys/fs/cgroup", "/sys/fs/cgroup"], at: 4)

        // Each side says which it has (`kiln status` names the limits only when they are rlimits).
        let rlimitsOnly = "limits: rlimits only"
        let statusWith = try command(withGroups[0], Array(withGroups.dropFirst()) + ["status"], in: home)
        guard !statusWith.contains(rlimitsOnly) else {
            throw BenchError.unexpected("this host gives Kiln no control group to make (\(statusWith)): nothing to measure")
        }
        let statusWithout = try command(withoutGroups[0], Array(withoutGroups.dropFirst()) + ["status"], in: home)
        guard statusWithout.contains(rlimitsOnly) else {
            throw BenchError.unexpected("a read-only /sys/fs/cgroup still gave Kiln control groups: \(statusWithout)")
        }

        let timer = try SwiftTimer(in: work.url("swift-timer"))
        func warm(_ wrapped: [String]) throws -> SwiftTimer.Run {
            try timer.measure { try command(wrapped[0], Array(wrapped.dropFirst()) + ["run", "warm"], in: home, environment: timer.environment) }
        }
        // The first run builds; one more on each side, since SwiftPM evaluates the manifest again
        // when the environment changes.
        for wrapped in [withGroups, withoutGroups, withGroups, withoutGroups] { _ = try warm(wrapped) }
        var cost: [Double] = []
        var spread: [Double] = []
        var outside: (with: [Double], without: [Double]) = ([], [])
        for pair in 0..<Self.pairs {
            let order = pair % 2 == 0 ? [withGroups, withoutGroups] : [withoutGroups, withGroups]
            let runs = try order.map { try warm($0) }
            let (with, without) = pair % 2 == 0 ? (runs[0], runs[1]) : (runs[1], runs[0])
            cost.append(with.outside - without.outside)
            outside.with.append(with.outside)
            outside.without.append(without.outside)
            let (first, second) = (try warm(withoutGroups), try warm(withoutGroups))
            spread.append(pair % 2 == 0 ? first.outside - second.outside : second.outside - first.outside)
        }
        table.add(
            "the limits' cost, warm integration (control groups made and removed)", target: "≤ 5 ms",
            measured: Measure.format(SandboxBench.median(cost)),
            comparison: String(
                format:
                    "kiln run outside swift with control groups %.1f ms, without (rlimits) %.1f ms; median of %d alternating pairs (%.1f … %.1f ms); the method's own spread (without against without): %.1f ms",
                SandboxBench.median(outside.with), SandboxBench.median(outside.without), Self.pairs, cost.min() ?? 0, cost.max() ?? 0,
                SandboxBench.median(spread)))
    }
}
