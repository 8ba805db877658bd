import Foundation

/// The default sandbox's cost on a cold integration, told apart from the machine's noise.
///
/// A cold build takes 15–20 s and moves by a second from one run to the next here, so medians of
/// five runs on each side cannot tell 3 %. Instead: pairs of `kiln run` on a fresh data
/// directory, one under bubblewrap and one with `sandbox: none`, back to back in alternating
/// order, each pair giving the relative difference of its wall time. The method's own spread
/// comes from the same pairs with both sides `sandbox: none`. (CPU time from `getrusage` of the
/// children was tried: it misses the processes inside bubblewrap's PID namespace.)
struct SandboxBench {
    let kiln: String
    let work: Workspace

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
        var sandbox: [Double] = []
        var noise: [Double] = []
        for round in 0..<6 {
            let (a, b) = round % 2 == 0 ? (try cold(boxed), try cold(open)) : (try cold(open), try cold(boxed))
            let (withBox, without) = round % 2 == 0 ? (a, b) : (b, a)
            sandbox.append(withBox / without - 1)
            if round < 4 {
                let (first, second) = (try cold(open), try cold(control))
                noise.append(first / second - 1)
            }
        }
        func percent(_ values: [Double]) -> String {
            let sorted = values.sorted()
            let median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            return String(format: "%+.1f %% (pairs %+.1f … %+.1f %%)", median * 100, (sorted.first ?? 0) * 100, (sorted.last ?? 0) * 100)
        }
        table.add(
            "the default sandbox's cost, cold integration (\(label)), wall", target: "within 3 %", measured: percent(sandbox),
            comparison: "6 back-to-back pairs, bubblewrap vs sandbox: none, order alternating; the method's own spread (none vs none, 4 pairs): "
                + percent(noise))
    }

    /// A `kiln run` of `home`'s bot on a fresh data directory: its wall time, in milliseconds.
    private func cold(_ home: String) throws -> Double {
        try? FileManager.default.removeItem(atPath: home + "/.kiln")
        let start = ContinuousClock.now
        _ = try? command(kiln, ["run", "cold"], in: home)
        return Measure.milliseconds(ContinuousClock.now - start)
    }
}
