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
    private func coldOverhead(into table: Table) async throws {
        let git = "/usr/bin/git"
        let repository: String
        let label: String
        if let given = ProcessInfo.processInfo.environment["KILN_BENCH_PACKAGE"] {
            repository = given
            label = (given as NSString).lastPathComponent
        } else {
            repository = work.url("cold-package")
            label = "120 XCTests"
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
        }
        let branch = try command(git, ["-C", repository, "rev-parse", "--abbrev-ref", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let home = work.url("kiln-cold")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "repository: {url: '\(repository)', branch: \(branch)}\n".write(toFile: home + "/Bots/cold.yml", atomically: false, encoding: .utf8)
        let withKiln = await Measure.median(runs: 3, prepare: { try? FileManager.default.removeItem(atPath: home + "/.kiln") }) {
            _ = try? command(kiln, ["run", "cold"], in: home)
        }
        let swift = try command("/usr/bin/env", ["which", "swift"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let clone = work.url("cold-clone")
        let byHand = try await Measure.median(runs: 3, prepare: { try? FileManager.default.removeItem(atPath: clone) }) {
            try command(git, ["clone", "-q", repository, clone])
            try command(swift, ["build", "-c", "debug", "--build-tests"], in: clone)
            _ = try? command(swift, ["test", "--skip-build", "-c", "debug"], in: clone)
        }
        table.add(
            "Kiln's overhead, cold integration (\(label))", target: "< 500 ms", measured: Measure.format(withKiln - byHand),
            comparison: "kiln run \(Measure.format(withKiln)) vs git clone + by hand \(Measure.format(byHand))")
    }
}
