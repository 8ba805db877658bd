import Foundation
import KilnBuild

/// Integrations: Kiln's own overhead over running the same commands by hand, and log parsing speed.
struct IntegrationBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        try parsing(into: table)
        try await overhead(into: table)
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
            "Kiln's overhead, warm workspace, no new commit", target: "< max(5 %, 300 ms)", measured: Measure.format(overhead),
            comparison: "kiln run \(Measure.format(withKiln)) vs by hand \(Measure.format(byHand))")
    }
}
