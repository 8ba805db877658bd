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

/// Dependencies from Kiln's mirrors: a real package's resolution with them against SwiftPM alone
/// fetching from the same upstream over loopback, fetches from upstream for three bots sharing
/// the dependencies, and what `network: none` costs a warm integration.
struct DependenciesBench {
    let kiln: String
    let work: Workspace

    /// The machine's copies of the dependencies, served by `git daemon` on loopback.
    static let dependencies = [("swift-log", "1.16.2"), ("swift-argument-parser", "1.8.2")]

    func run(into table: Table) async throws {
        let served = work.url("deps-upstream")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        for (name, _) in Self.dependencies {
            let copy = "/opt/swift-packages/apple/\(name).git"
            guard FileManager.default.fileExists(atPath: copy) else {
                throw BenchError.unexpected("\(copy) is missing: this bench serves the machine's copy")
            }
            try command("/usr/bin/git", ["clone", "-q", "--bare", copy, "\(served)/\(name).git"])
        }
        let port = Int.random(in: 30_000..<60_000)
        let requests = work.url("deps-daemon.log")
        _ = FileManager.default.createFile(atPath: requests, contents: nil)
        // The daemon itself rather than the `git daemon` wrapper, stopped with SIGKILL: a child
        // started from a Swift concurrency thread may have SIGTERM blocked.
        let execPath = try command("/usr/bin/git", ["--exec-path"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: execPath + "/git-daemon")
        daemon.arguments = [
            "--verbose", "--reuseaddr", "--export-all", "--listen=127.0.0.1", "--port=\(port)", "--base-path=\(served)", served,
        ]
        daemon.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: requests))
        try daemon.run()
        defer { if daemon.isRunning { sendSignal(SIGKILL, to: daemon.processIdentifier) } }
        try await Task.sleep(for: .milliseconds(300))
        let repository = try package(port: port)

        // Three bots of one package, offline and clean every time: each dependency comes from
        // upstream once, for the first.
        let home = work.url("deps-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        for bot in ["one", "two", "three"] {
            try "repository: {url: '\(repository)'}\nclean: always\nnetwork: none\n".write(
                toFile: "\(home)/Bots/\(bot).yml", atomically: false, encoding: .utf8)
        }
        let before = try Self.uploads(requests)
        for bot in ["one", "two", "three"] { try command(kiln, ["run", bot], in: home) }
        let fetches = try Self.uploads(requests) - before
        table.add(
            "fetches from upstream, 3 bots sharing 2 dependencies", target: "each dependency once", measured: "\(fetches) for 2 dependencies",
            comparison: "git daemon's upload-pack requests during three clean kiln runs with network: none")

        // SwiftPM resolving the package in a fresh clone and a fresh HOME, from the upstream, or
        // sent to Kiln's mirrors by the git configuration Kiln gives builds.
        let config = try String(contentsOfFile: home + "/.kiln/homes/one/.gitconfig", encoding: .utf8)
        var upstream: [Double] = []
        var mirrored: [Double] = []
        for round in 0..<5 {
            upstream.append(try resolve(repository, config: nil, round: round))
            mirrored.append(try resolve(repository, config: config, round: round))
        }
        let (alone, throughMirrors) = (upstream.sorted()[upstream.count / 2], mirrored.sorted()[mirrored.count / 2])
        table.add(
            "resolving swift-log and swift-argument-parser, fresh", target: "no slower than upstream", measured: Measure.format(throughMirrors),
            comparison:
                "swift package resolve through Kiln's mirrors \(Measure.format(throughMirrors)), from git daemon on loopback \(Measure.format(alone)); medians of 5"
        )

        // A warm integration offline and with the network, both sandboxed, interleaved; once
        // every pin is mirrored here, the upstream is stopped.
        let warm = work.url("deps-warm")
        try FileManager.default.createDirectory(atPath: warm + "/Bots", withIntermediateDirectories: true)
        try "repository: {url: '\(repository)'}\n".write(toFile: warm + "/Bots/open.yml", atomically: false, encoding: .utf8)
        try "repository: {url: '\(repository)'}\nnetwork: none\n".write(toFile: warm + "/Bots/offline.yml", atomically: false, encoding: .utf8)
        try command(kiln, ["run", "open"], in: warm)
        try command(kiln, ["run", "offline"], in: warm)
        sendSignal(SIGKILL, to: daemon.processIdentifier)
        daemon.waitUntilExit()
        var open: [Double] = []
        var offline: [Double] = []
        for _ in 0..<8 {
            open.append(try Self.timed { try command(kiln, ["run", "open"], in: warm) })
            offline.append(try Self.timed { try command(kiln, ["run", "offline"], in: warm) })
        }
        let (with, without) = (open.sorted()[open.count / 2], offline.sorted()[offline.count / 2])
        table.add(
            "network: none on a warm integration", target: "within 20 ms", measured: Measure.format(without - with),
            comparison: "kiln run offline \(Measure.format(without)), with the network \(Measure.format(with)); medians of 8, default sandbox")
    }

    /// A package using both dependencies from the daemon, with its `Package.resolved`.
    private func package(port: Int) throws -> String {
        let repository = work.url("deps-package")
        try FileManager.default.createDirectory(atPath: repository + "/Sources/App", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: repository + "/Tests/AppTests", withIntermediateDirectories: true)
        let packages = Self.dependencies.map { #".package(url: "git://127.0.0.1:\#(port)/\#($0.0).git", exact: "\#($0.1)")"# }
        try """
        // swift-tools-version: 5.9
        import PackageDescription
        let package = Package(
            name: "App",
            dependencies: [\(packages.joined(separator: ", "))],
            targets: [
                .target(name: "App", dependencies: [
                    .product(name: "Logging", package: "swift-log"), .product(name: "ArgumentParser", package: "swift-argument-parser"),
                ]),
                .testTarget(name: "AppTests", dependencies: ["App"]),
            ]
        )

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        try "import ArgumentParser\nimport Logging\n\npublic let logger = Logger(label: \"app\")\n".write(
            toFile: repository + "/Sources/App/App.swift", atomically: false, encoding: .utf8)
        try "import XCTest\n@testable import App\n\nfinal class AppTests: XCTestCase { func testLabel() { XCTAssertEqual(logger.label, \"app\") } }\n"
            .write(toFile: repository + "/Tests/AppTests/AppTests.swift", atomically: false, encoding: .utf8)
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        let home = work.url("deps-resolve-home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        try command("/usr/bin/env", ["swift", "package", "resolve"], in: repository, environment: environment)
        try? FileManager.default.removeItem(atPath: repository + "/.build")
        try command("/usr/bin/git", ["init", "-q", "-b", "main"], in: repository)
        try command("/usr/bin/git", ["add", "-A"], in: repository)
        try command("/usr/bin/git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "package"], in: repository)
        return repository
    }

    /// Milliseconds of `swift package resolve` in a fresh clone with a fresh HOME holding `config`.
    private func resolve(_ repository: String, config: String?, round: Int) throws -> Double {
        let clone = work.url("deps-clone-\(config == nil ? "upstream" : "mirrors")-\(round)")
        let home = clone + "-home"
        try command("/usr/bin/git", ["clone", "-q", repository, clone])
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        if let config { try config.write(toFile: home + "/.gitconfig", atomically: false, encoding: .utf8) }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        return try Self.timed { try command("/usr/bin/env", ["swift", "package", "resolve"], in: clone, environment: environment) }
    }

    static func timed(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        return Measure.milliseconds(ContinuousClock.now - start)
    }

    /// How many fetches `git daemon` has served so far.
    static func uploads(_ log: String) throws -> Int {
        try String(contentsOfFile: log, encoding: .utf8).components(separatedBy: "Request upload-pack").count - 1
    }
}
