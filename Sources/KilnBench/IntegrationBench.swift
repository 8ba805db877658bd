import Foundation
import KilnBuild

/// Integrations: Kiln's own overhead over running the same commands by hand, and log parsing speed.
struct IntegrationBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        try parsing(into: table)
        try await overhead(into: table)
        try await coldOverhead(into: table)
    }

    /// A 50 MiB build log, one diagnostic in a hundred lines, through the diagnostics parser.
    private func parsing(into table: Table) throws {
        var chunk = ""
        for index in 0..<99 {
            chunk += "[\(index)/500] Compiling App File\(index).swift and some more text to make a realistic line of output\n"
        }
        var log = ""
        log.reserveCapacity(52 * 1024 * 1024)
        var chunks = 0
        while log.utf8.count < 50 * 1024 * 1024 {
            log += chunk
            log += "/work/app/Sources/App/File\(chunks).swift:\(chunks % 400 + 1):7: warning: variable 'x' was never mutated; consider 'let'\n"
            chunks += 1
        }
        let start = ContinuousClock.now
        let diagnostics = DiagnosticParser.parse(log, root: "/work/app")
        let elapsed = Measure.milliseconds(ContinuousClock.now - start)
        guard diagnostics.count == chunks else { throw BenchError.unexpected("parsed \(diagnostics.count) of \(chunks) diagnostics") }
        table.add("parsing a 50 MiB build log", target: "< 1 s", measured: Measure.format(elapsed), comparison: "diagnostics parser")
    }

    /// `kiln run` on a warm workspace with no new commit, against `swift build --build-tests` and
    /// `swift test --skip-build` run by hand in the same workspace.
    private func overhead(into table: Table) async throws {
        let repository = work.url("package")
        try FileManager.default.createDirectory(atPath: repository + "/Sources/Lib", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repository + "/Tests/LibTests", withIntermediateDirectories: true)
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "Bench", targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])])

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        try "public func add(_ a: Int, _ b: Int) -> Int { a + b }\n".write(
            toFile: repository + "/Sources/Lib/Lib.swift", atomically: false, encoding: .utf8)
        try """
        import XCTest
        @testable import Lib
        final class LibTests: XCTestCase { func testAdd() { XCTAssertEqual(add(1, 2), 3) } }

        """.write(toFile: repository + "/Tests/LibTests/LibTests.swift", atomically: false, encoding: .utf8)
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        let git = "/usr/bin/git"
        try command(git, ["init", "-q", "-b", "main"], in: repository)
        try command(git, ["add", "-A"], in: repository)
        try command(git, ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "package"], in: repository)
        let home = work.url("kiln-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "repository: {url: '\(repository)'}\n".write(toFile: home + "/Bots/bench.yml", atomically: false, encoding: .utf8)
        try command(kiln, ["run", "bench"], in: home)  // cold: builds everything once

        let withKiln = try await Measure.median(runs: 5) { try command(kiln, ["run", "bench"], in: home) }
        let workspace = home + "/.kiln/workspaces/bench"
        let swift = try command("/usr/bin/env", ["which", "swift"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let byHand = try await Measure.median(runs: 5) {
            try command(swift, ["build", "-c", "debug", "--build-tests"], in: workspace)
            try command(swift, ["test", "--skip-build", "-c", "debug"], in: workspace)
        }
        let overhead = withKiln - byHand
        table.add(
            "Kiln's overhead, warm workspace, no new commit", target: "< 150 ms", measured: Measure.format(overhead),
            comparison: "kiln run \(Measure.format(withKiln)) vs by hand \(Measure.format(byHand))")
    }

    /// `kiln run` on a fresh data directory (first clone, empty workspace) of a package with 120
    /// XCTests and no dependencies, against `git clone` and the same `swift build --build-tests`
    /// and `swift test` by hand in a fresh clone. `KILN_BENCH_PACKAGE` names another git
    /// repository to measure instead (such as a clone of a real third-party package).
    ///
    /// A cold `swift build` of the same package varies by more than a second from one run to the
    /// next on this machine, far more than the overhead measured, so each side runs `swift`
    /// through a wrapper that records how long every `swift` process took. The overhead is the
    /// median time each side spends outside `swift build` (for Kiln: the store, the clone, the
    /// checkout, `swift test` with its event stream, parsing, the completion), Kiln's minus by
    /// hand's; the comparison shows that the builds themselves took the same time.
    private func coldOverhead(into table: Table) async throws {
        let (repository, label) = try coldPackage()
        let git = "/usr/bin/git"
        let branch = try command(git, ["-C", repository, "rev-parse", "--abbrev-ref", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let home = work.url("kiln-cold")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "repository: {url: '\(repository)', branch: \(branch)}\n".write(toFile: home + "/Bots/cold.yml", atomically: false, encoding: .utf8)
        let timer = try SwiftTimer(in: work.url("swift-timer"))
        let clone = work.url("cold-clone")
        var kilnRuns: [SwiftTimer.Run] = []
        var handRuns: [SwiftTimer.Run] = []
        for _ in 0..<5 {  // interleaved, so a slower minute of the machine falls on both sides
            try? FileManager.default.removeItem(atPath: home + "/.kiln")
            kilnRuns.append(try timer.measure { _ = try? command(kiln, ["run", "cold"], in: home, environment: timer.environment) })
            try? FileManager.default.removeItem(atPath: clone)
            handRuns.append(
                try timer.measure {
                    try command(git, ["clone", "-q", repository, clone])
                    try command(timer.swift, ["build", "-c", "debug", "--build-tests"], in: clone)
                    _ = try? command(timer.swift, ["test", "--skip-build", "-c", "debug"], in: clone)
                })
        }
        func median(_ runs: [SwiftTimer.Run], _ value: (SwiftTimer.Run) -> Double) -> Double {
            let sorted = runs.map(value).sorted()
            return sorted[sorted.count / 2]
        }
        let overhead = median(kilnRuns, \.outsideBuild) - median(handRuns, \.outsideBuild)
        table.add(
            "Kiln's overhead, cold integration (\(label))", target: "< 500 ms", measured: Measure.format(overhead),
            comparison: "outside swift build: kiln run \(Measure.format(median(kilnRuns, \.outsideBuild))) vs git clone + swift test "
                + "\(Measure.format(median(handRuns, \.outsideBuild))); swift build \(Measure.format(median(kilnRuns, \.build))) vs "
                + "\(Measure.format(median(handRuns, \.build))); in all \(Measure.format(median(kilnRuns, \.total))) vs "
                + "\(Measure.format(median(handRuns, \.total)))")
    }

    /// The cold integration's package: `KILN_BENCH_PACKAGE`, or one written here.
    private func coldPackage() throws -> (repository: String, label: String) {
        if let given = ProcessInfo.processInfo.environment["KILN_BENCH_PACKAGE"] {
            return (given, (given as NSString).lastPathComponent)
        }
        let git = "/usr/bin/git"
        let repository = work.url("cold-package")
        try FileManager.default.createDirectory(atPath: repository + "/Sources/Cold", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repository + "/Tests/ColdTests", withIntermediateDirectories: true)
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "Cold", targets: [.target(name: "Cold"), .testTarget(name: "ColdTests", dependencies: ["Cold"])])

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        var source = ""
        for index in 0..<40 { source += "public func value\(index)(_ x: Int) -> Int { x &* \(index + 1) &+ \(index) }\n" }
        try source.write(toFile: repository + "/Sources/Cold/Cold.swift", atomically: false, encoding: .utf8)
        for file in 0..<4 {
            var tests = "import XCTest\n@testable import Cold\n\nfinal class ColdTests\(file): XCTestCase {\n"
            for index in 0..<30 { tests += "    func test\(index)() { XCTAssertEqual(value\((file * 30 + index) % 40)(0), \((file * 30 + index) % 40)) }\n" }
            try (tests + "}\n").write(toFile: repository + "/Tests/ColdTests/ColdTests\(file).swift", atomically: false, encoding: .utf8)
        }
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        try command(git, ["init", "-q", "-b", "main"], in: repository)
        try command(git, ["add", "-A"], in: repository)
        try command(git, ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "package"], in: repository)
        return (repository, "120 XCTests")
    }
}

/// A `swift` first on PATH that runs the real one and records how long each run took, so a
/// benchmark can tell the time spent in `swift build` from the time spent around it.
struct SwiftTimer {
    /// One measured run: all of it, and the part inside `swift build`.
    struct Run {
        var total: Double
        var build: Double
        var outsideBuild: Double { total - build }
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
        echo "$1 $start $(date +%s%N)" >> '\(times)'
        exit $status

        """.write(toFile: swift, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift)
    }

    /// Times `body`, and the `swift build` runs inside it.
    func measure(_ body: () throws -> Void) throws -> Run {
        try? FileManager.default.removeItem(atPath: times)
        let start = ContinuousClock.now
        try body()
        let total = Measure.milliseconds(ContinuousClock.now - start)
        let lines = ((try? String(contentsOfFile: times, encoding: .utf8)) ?? "").split(separator: "\n")
        var build = 0.0
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[0] == "build", let start = Double(fields[1]), let end = Double(fields[2]) else { continue }
            build += (end - start) / 1e6
        }
        guard build > 0 else { throw BenchError.unexpected("no swift build ran through \(swift)") }
        return Run(total: total, build: build)
    }
}
