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

#if canImport(Glibc)
    import Glibc
#endif

/// The default sandbox's cost on a cold integration, whole and by its parts.
///
/// Whole: pairs of `kiln run` on a fresh data directory, one under bubblewrap and one with
/// `sandbox: none`, back to back in alternating order, each pair giving the relative difference
/// of its wall time and of its CPU time (`perf stat`'s task clock, which follows every process
/// the run starts, inside bubblewrap's namespaces too; `getrusage` of the children misses those).
/// The method's own spread comes from the same pairs with both sides `sandbox: none`. On this
/// machine both move by ±10 % between two runs of the same build (a fixed Python loop's CPU time
/// by ±4 %), so the whole cannot tell 3 %, and there are no instruction counters to count with.
///
/// By its parts, each measured so that it can be told: what the sandbox adds is processes (one
/// bubblewrap per sandboxed command, counted by the kernel's exec tracepoint in the same runs),
/// each costing bubblewrap's start (timed in many alternating pairs against the bare command),
/// and the file system the build sees (a file workload in a bound workspace, in pairs).
struct SandboxBench {
    let kiln: String
    let work: Workspace
    static let pairs = 8

    /// One `kiln run`: wall and CPU time in milliseconds, and the processes it started.
    struct Run {
        let wall: Double
        let cpu: Double
        let processes: Double
    }

    func run(into table: Table) async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/perf") else {
            throw BenchError.unexpected("perf is missing: apt-get install linux-perf (make bench installs it)")
        }
        let (repository, label) = try IntegrationBench(kiln: kiln, work: work).coldPackage()
        let branch = try command("/usr/bin/git", ["-C", repository, "rev-parse", "--abbrev-ref", "HEAD"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        func home(_ name: String, sandboxed: Bool) throws -> String {
            let home = work.url("sandbox-\(name)")
            try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
            try "repository: {url: '\(repository)', branch: \(branch)}\n\(sandboxed ? "" : "sandbox: none\n")".write(
                toFile: home + "/Bots/cold.yml", atomically: false, encoding: .utf8)
            return home
        }
        let (boxed, open, control) = (try home("boxed", sandboxed: true), try home("open", sandboxed: false), try home("control", sandboxed: false))
        _ = try cold(open)  // the first build of the package on this machine fills caches no later run needs
        var sandbox: [(wall: Double, cpu: Double)] = []
        var noise: [(wall: Double, cpu: Double)] = []
        var added: [Double] = []
        var wall: [Double] = []
        for round in 0..<Self.pairs {
            let (withBox, without) = try pair(boxed, against: open, firstFirst: round % 2 == 0)
            sandbox.append((withBox.wall / without.wall - 1, withBox.cpu / without.cpu - 1))
            added.append(withBox.processes - without.processes)
            wall.append(without.wall)
            let (first, second) = try pair(control, against: open, firstFirst: round % 2 == 1)
            noise.append((first.wall / second.wall - 1, first.cpu / second.cpu - 1))
        }
        let method = "\(Self.pairs) back-to-back pairs, bubblewrap vs sandbox: none, order alternating; the method's own spread"
        table.add(
            "the default sandbox's cost, cold integration (\(label)), wall", target: "within 3 %", measured: Self.percent(sandbox.map(\.wall)),
            comparison: "\(method) (none vs none, \(Self.pairs) pairs): " + Self.percent(noise.map(\.wall)))
        table.add(
            "the default sandbox's cost, cold integration (\(label)), CPU", target: "within 3 %", measured: Self.percent(sandbox.map(\.cpu)),
            comparison: "perf stat task-clock of every process, the same runs; the method's own spread: " + Self.percent(noise.map(\.cpu)))

        // Its parts: the processes it adds, each one bubblewrap's start.
        let workspace = work.url("sandbox-parts/workspace")
        let homeDirectory = work.url("sandbox-parts/home")
        for path in [workspace, homeDirectory] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        let bubblewrap = [
            "/usr/bin/bwrap", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            "--tmpfs", work.url("sandbox-parts/data"), "--bind", workspace, workspace, "--bind", homeDirectory, homeDirectory,
            "--die-with-parent", "--chdir", workspace, "--",
        ]
        try FileManager.default.createDirectory(atPath: work.url("sandbox-parts/data"), withIntermediateDirectories: true)
        var starts: [Double] = []
        for _ in 0..<3 { starts.append(try Self.median(pairs: 100, bubblewrap + ["/bin/true"], against: ["/bin/true"]).median) }
        let processes = Self.median(added)
        let start = Self.median(starts)
        let coldWall = Self.median(wall)
        table.add(
            "the default sandbox's cost, cold integration (\(label)), by its parts", target: "within 3 %",
            measured: String(
                format: "%+.2f %% (%.0f processes more × bubblewrap's start %.2f ms)", 100 * processes * start / coldWall, processes, start),
            comparison: String(
                format:
                    "processes: exec tracepoint of the runs above; start: median of 100 alternating pairs against /bin/true, 3 times: %@ ms; of a %.1f s cold integration",
                starts.map { String(format: "%.2f", $0) }.joined(separator: ", "), coldWall / 1000))

        // The file system it sees: what a compiler does, looking up files of the read-only root by
        // absolute path, and making, reading and removing files in the bound workspace.
        let files = """
            import os, itertools
            os.chdir(os.path.dirname(__file__))
            names = list(itertools.islice((os.path.join(r, f) for r, _, fs in os.walk('/usr/lib') for f in fs), 20000))
            for n in names: os.lstat(n)
            for r in range(2):
                d = 'w%d' % r; os.mkdir(d)
                for i in range(500): open(d + '/f%d' % i, 'w').write('x' * 2000)
                for i in range(500): open(d + '/f%d' % i).read()
                for i in range(500): os.unlink(d + '/f%d' % i)
                os.rmdir(d)

            """
        let script = workspace + "/files.py"
        try files.write(toFile: script, atomically: false, encoding: .utf8)
        let python = ["/usr/bin/python3", script]
        let inside = try Self.median(pairs: 24, bubblewrap + python, against: python)
        let itself = try Self.median(pairs: 24, python, against: python)
        table.add(
            "file work in the sandbox (bound workspace, read-only root)", target: "within 3 %, spread < 3 %",
            measured: String(
                format: "%+.2f %% (%+.1f ms of %.0f ms, bubblewrap's start included)", 100 * inside.median / inside.base, inside.median, inside.base),
            comparison: String(
                format:
                    "20,000 lookups and 3,000 file operations, median of 24 alternating pairs; the method's own spread (the same against itself): %+.2f %%",
                100 * itself.median / itself.base))
    }

    /// `first`'s run and `second`'s, back to back in the order given.
    private func pair(_ first: String, against second: String, firstFirst: Bool) throws -> (first: Run, second: Run) {
        let (a, b) = firstFirst ? (try cold(first), try cold(second)) : (try cold(second), try cold(first))
        return firstFirst ? (a, b) : (b, a)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func percent(_ values: [Double]) -> String {
        let sorted = values.sorted()
        return String(format: "%+.1f %% (pairs %+.1f … %+.1f %%)", median(values) * 100, (sorted.first ?? 0) * 100, (sorted.last ?? 0) * 100)
    }

    /// The median of `pairs` differences (ms) between `command` and `base`, run alternately, and
    /// the median time of `base`.
    static func median(pairs: Int, _ command: [String], against base: [String]) throws -> (median: Double, base: Double) {
        var differences: [Double] = []
        var bases: [Double] = []
        for index in 0..<pairs {
            let (measured, alone): (Double, Double)
            if index % 2 == 0 {
                measured = try Measure.spawn(command)
                alone = try Measure.spawn(base)
            } else {
                alone = try Measure.spawn(base)
                measured = try Measure.spawn(command)
            }
            differences.append(measured - alone)
            bases.append(alone)
        }
        return (median(differences), median(bases))
    }

    /// A `kiln run` of `home`'s bot on a fresh data directory, under `perf stat`.
    private func cold(_ home: String) throws -> Run {
        try? FileManager.default.removeItem(atPath: home + "/.kiln")
        let counts = home + "/perf.csv"
        // perf runs the command from `home`: the path of `kiln` must not be relative.
        let kiln = URL(fileURLWithPath: kiln).standardizedFileURL.path
        let start = ContinuousClock.now
        _ = try? command(
            "/usr/bin/perf", ["stat", "-x,", "-e", "task-clock,sched:sched_process_exec", "-o", counts, "--", kiln, "run", "cold"], in: home)
        let wall = Measure.milliseconds(ContinuousClock.now - start)
        // "12345.67,msec,task-clock,…": the first field of the line that names the counter.
        let lines = try String(contentsOfFile: counts, encoding: .utf8).split(separator: "\n")
        func counter(_ name: String) throws -> Double {
            guard let line = lines.first(where: { $0.contains(",\(name),") }), let value = Double(line.split(separator: ",").first ?? "") else {
                throw BenchError.unexpected("perf stat counted no \(name) in \(counts) (as root, with tracefs for sched:sched_process_exec)")
            }
            return value
        }
        return Run(wall: wall, cpu: try counter("task-clock"), processes: try counter("sched:sched_process_exec"))
    }
}
