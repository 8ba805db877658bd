import Foundation

/// The default sandbox's cost on a cold integration, told apart from the machine's noise.
///
/// A cold build takes 15–20 s and moves by a second from one run to the next here, so medians of
/// five runs on each side cannot tell 3 %. Instead: pairs of `kiln run` on a fresh data
/// directory, one under bubblewrap and one with `sandbox: none`, back to back in alternating
/// order, each pair giving the relative difference of its wall time and of its CPU time (user
/// and system of every process the run waited for: what the sandbox would add in work, not in
/// waiting for a busy core). The method's own spread comes from the same pairs with both sides
/// `sandbox: none`.
struct SandboxBench {
    let kiln: String
    let work: Workspace

    struct Sample {
        var wall: Double
        var cpu: Double
    }

    func run(into table: Table) async throws {
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
        for round in 0..<6 {
            let (a, b) = round % 2 == 0 ? (try cold(boxed), try cold(open)) : (try cold(open), try cold(boxed))
            let (withBox, without) = round % 2 == 0 ? (a, b) : (b, a)
            sandbox.append((withBox.wall / without.wall - 1, withBox.cpu / without.cpu - 1))
            if round < 4 {
                let (first, second) = (try cold(open), try cold(control))
                noise.append((first.wall / second.wall - 1, first.cpu / second.cpu - 1))
            }
        }
        func percent(_ values: [Double]) -> String {
            let sorted = values.sorted()
            let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            return String(format: "%+.1f %% (pairs %+.1f … %+.1f %%)", median * 100, (sorted.first ?? 0) * 100, (sorted.last ?? 0) * 100)
        }
        table.add(
            "the default sandbox's cost, cold integration (\(label)), wall", target: "within 3 %", measured: percent(sandbox.map(\.wall)),
            comparison: "6 back-to-back pairs, bubblewrap vs sandbox: none, order alternating; the method's own spread (none vs none, 4 pairs): "
                + percent(noise.map(\.wall)))
        table.add(
            "the default sandbox's cost, cold integration (\(label)), CPU", target: "within 3 %", measured: percent(sandbox.map(\.cpu)),
            comparison: "user + system of every process of the run, same pairs; the method's own spread: " + percent(noise.map(\.cpu)))
    }

    /// A `kiln run` of `home`'s bot on a fresh data directory: its wall time and CPU time.
    private func cold(_ home: String) throws -> Sample {
        try? FileManager.default.removeItem(atPath: home + "/.kiln")
        var before = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &before)
        let start = ContinuousClock.now
        _ = try? command(kiln, ["run", "cold"], in: home)
        let wall = Measure.milliseconds(ContinuousClock.now - start)
        var after = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &after)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        let cpu = seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) - seconds(before.ru_stime)
        return Sample(wall: wall, cpu: cpu)
    }
}
