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
import KilnStore
import KilnTestSupport
import Testing

@Suite("network: none: builds without network, dependencies from Kiln's mirrors")
struct NetworkNoneTests {
    /// A package `dep` whose `depVersion()` is `version`.
    static func dependency(_ version: Int) -> [String: String] {
        [
            "Package.swift": """
            // swift-tools-version: 5.9
            import PackageDescription
            let package = Package(name: "dep", products: [.library(name: "Dep", targets: ["Dep"])], targets: [.target(name: "Dep")])

            """,
            "Sources/Dep/Dep.swift": "public func depVersion() -> Int { \(version) }\n",
        ]
    }

    /// The application: it needs `dep` from `major`.0.0, and its tests check that version and
    /// say whether a connection to port `PROBE_PORT` on 127.0.0.1 went through.
    static func application(dependency url: String, major: Int) -> [String: String] {
        let identity = url.split(separator: "/").last.map(String.init) ?? "dep"
        return [
            ".gitignore": ".build/\n",
            "Package.swift": """
            // swift-tools-version: 5.9
            import PackageDescription
            let package = Package(
                name: "App",
                dependencies: [.package(url: "\(url)", from: "\(major).0.0")],
                targets: [
                    .target(name: "App", dependencies: [.product(name: "Dep", package: "\(identity)")]),
                    .testTarget(name: "AppTests", dependencies: ["App"]),
                ]
            )

            """,
            "Sources/App/App.swift": "import Dep\n\npublic func appVersion() -> Int { depVersion() }\n",
            "Tests/AppTests/AppTests.swift": """
            import App
            import Foundation
            import XCTest

            final class AppTests: XCTestCase {
                func testVersion() { XCTAssertEqual(appVersion(), \(major)) }

                func testProbe() {
                    let port = UInt16(ProcessInfo.processInfo.environment["PROBE_PORT"] ?? "") ?? 1
                    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    defer { close(fd) }
                    var address = sockaddr_in()
                    address.sin_family = sa_family_t(AF_INET)
                    address.sin_port = port.bigEndian
                    address.sin_addr.s_addr = inet_addr("127.0.0.1")
                    let result = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                    }
                    print("probe: \\(result == 0 ? "connected" : "refused")")
                }
            }

            """,
        ]
    }

    /// `Package.resolved` of the application in `repo`, as SwiftPM writes it (with the network).
    static func resolve(_ repo: GitFixture) async throws -> String {
        let resolved = try await runProcess("/usr/bin/env", ["swift", "package", "resolve"], in: repo.path)
        #expect(resolved.status == 0, "\(resolved.standardError)")
        return try String(contentsOfFile: repo.path + "/Package.resolved", encoding: .utf8)
    }

    static func log(_ home: TemporaryDirectory, _ number: Int, of bot: String = "app") async throws -> String {
        let store = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        return String(decoding: try await store.readLog(bot: bot, number: number, from: 0, limit: 1 << 22) ?? [], as: UTF8.self)
    }

    @Test(
        "A dependency served by git daemon: built with network: none and clean: always, the test cannot reach the host (the control can); the daemon down, built from the mirror; back with a new tag, fetched; an unknown pin is one error issue"
    )
    func dependencies() async throws {
        let served = try TemporaryDirectory()
        let dep = try GitFixture()
        try dep.commit("Dep 1", files: Self.dependency(1))
        try dep.git("tag", "1.0.0")
        // A name of its own: SwiftPM remembers each version's revision by package, for the user
        // (whatever HOME says), and every run of this test makes new ones.
        let name = "dep-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createSymbolicLink(atPath: served.url(name), withDestinationPath: dep.path)
        var daemon: GitDaemon? = try GitDaemon(serving: served.path)
        let port = try #require(daemon?.port)
        let url = "git://127.0.0.1:\(port)/\(name)"

        let app = try GitFixture()
        try app.commit("App", files: Self.application(dependency: url, major: 1))
        let library = try GitFixture()
        try library.commit("Library", files: Self.application(dependency: url, major: 1))
        try app.commit("Pin", files: ["Package.resolved": try await Self.resolve(app)])

        let home = try TemporaryDirectory()
        let bot = "repository: {url: '\(app.url)'}\nclean: always\nenvironment: {PROBE_PORT: '\(port)'}\n"
        try home.write("Bots/app.yml", bot + "network: none\n")
        try home.write("Bots/control.yml", bot)
        try home.write("Bots/library.yml", "repository: {url: '\(library.url)'}\nnetwork: none\n")

        // Without a Package.resolved nothing says what to mirror: SwiftPM names what it cannot
        // fetch, and Kiln fetches it and builds again.
        let unpinned = try await home.kilnRun("library")
        #expect(unpinned.status == 0 && unpinned.output.contains("result: succeeded"), "\(unpinned.output)")
        let fetched = try await Self.log(home, 1, of: "library")
        #expect(fetched.contains("dependency \(url): fetched for the build, which has no network"), "\(fetched)")

        let first = try await home.kilnRun()
        #expect(first.status == 0 && first.output.contains("result: succeeded"), "\(first.output)")
        let one = try await Self.log(home, 1)
        #expect(one.contains("dependencies: 1 resolved from Kiln's mirrors") && one.contains("\(name) 1.0.0 (current)"), "\(one)")
        #expect(one.contains("probe: refused") && !one.contains("probe: connected"), "no network in the build: \(one)")
        let pin = DependencyPin(identity: name, location: url, version: "1.0.0", revision: try dep.head(), mirror: .current)
        #expect(try await home.recorded(1).dependencies == [pin], "the integration lists its pins, as the mirror had them")
        let control = try await home.kilnRun("control")
        #expect(control.status == 0, "\(control.output)")
        #expect(try await Self.log(home, 1, of: "control").contains("probe: connected"), "the probe works with the network")

        // The upstream down: a clean build still resolves, from the mirror.
        daemon = nil
        let second = try await home.kilnRun()
        #expect(second.status == 0 && second.output.contains("result: succeeded"), "\(second.output)")
        #expect(try await Self.log(home, 2).contains("\(name) 1.0.0 (current)"))

        // Back, with a new major version the package now requires: fetched, and built against.
        try dep.commit("Dep 2", files: Self.dependency(2))
        try dep.git("tag", "2.0.0")
        daemon = try GitDaemon(serving: served.path, port: port)
        try app.commit("Dep 2", files: Self.application(dependency: url, major: 2))
        try FileManager.default.removeItem(atPath: app.path + "/Package.resolved")
        try app.commit("Pin 2", files: ["Package.resolved": try await Self.resolve(app)])
        let third = try await home.kilnRun()
        #expect(third.status == 0 && third.output.contains("result: succeeded"), "\(third.output)")
        #expect(try await Self.log(home, 3).contains("\(name) 2.0.0 (fetched)"))
        #expect(try await home.recorded(3).dependencies.map(\.mirror) == [.fetched])

        // A pin of a commit the upstream (down again) never had: one error issue naming it.
        daemon = nil
        let pinned = try String(contentsOfFile: app.path + "/Package.resolved", encoding: .utf8)
        let revision = try dep.head()
        try app.commit("Pin nothing", files: ["Package.resolved": pinned.replacingOccurrences(of: revision, with: String(repeating: "e", count: 40))])
        let fourth = try await home.kilnRun()
        #expect(fourth.status == 1 && fourth.output.contains("result: build-errors"), "\(fourth.output)")
        let errors = try await home.recorded(4).issues.filter { $0.type == .error }
        #expect(errors.count == 1 && errors.first?.message.hasPrefix("dependency \(url) cannot be had: ") == true, "\(errors)")
        #expect(try await home.recorded(4).dependencies.map(\.mirror) == [.unavailable])
    }

    @Test("A dependency whose sources come from a git submodule builds with network: none, and again with its servers down")
    func dependencyWithSubmodule() async throws {
        let served = try TemporaryDirectory()
        let suffix = UUID().uuidString.prefix(8).lowercased()
        var daemon: GitDaemon? = try GitDaemon(serving: served.path)
        let port = try #require(daemon?.port)
        let vendor = try GitFixture()
        try vendor.commit("Vendor", files: ["Vendor.swift": "func vendorValue() -> Int { 7 }\n"])
        try FileManager.default.createSymbolicLink(atPath: served.url("vendor-\(suffix)"), withDestinationPath: vendor.path)
        let dep = try GitFixture()
        var files = Self.dependency(1)
        files["Sources/Dep/Dep.swift"] = "public func depVersion() -> Int { vendorValue() }\n"
        try dep.commit("Dep", files: files)
        // Added from disk, then pointed at the server, as the upstream would have it.
        try dep.git("submodule", "add", "-q", vendor.url, "Sources/Dep/Vendor")
        try dep.git("config", "-f", ".gitmodules", "submodule.Sources/Dep/Vendor.url", "git://127.0.0.1:\(port)/vendor-\(suffix)")
        try dep.git("add", ".gitmodules")
        try dep.commit("Vendor as a submodule", files: [:])
        try dep.git("tag", "1.0.0")
        let name = "dep-\(suffix)"
        try FileManager.default.createSymbolicLink(atPath: served.url(name), withDestinationPath: dep.path)

        let app = try GitFixture()
        var application = Self.application(dependency: "git://127.0.0.1:\(port)/\(name)", major: 1)
        application["Tests/AppTests/AppTests.swift"] =
            "import App\nimport XCTest\n\nfinal class AppTests: XCTestCase {\n    func testVendored() { XCTAssertEqual(appVersion(), 7) }\n}\n"
        try app.commit("App", files: application)
        try app.commit("Pin", files: ["Package.resolved": try await Self.resolve(app)])
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: '\(app.url)'}\nclean: always\nnetwork: none\n")

        let first = try await home.kilnRun()
        #expect(first.status == 0 && first.output.contains("result: succeeded"), "\(first.output)")
        #expect(try await Self.log(home, 1).contains("\(name) 1.0.0 (fetched, with 1 submodule mirror(s))"))
        #expect(try await home.recorded(1).integration.summary?.tests == 1, "the vendored code was built and tested")

        // Both servers down: the clean build checks the submodule out from its mirror.
        daemon = nil
        let second = try await home.kilnRun()
        #expect(second.status == 0 && second.output.contains("result: succeeded"), "\(second.output)")
        #expect(try await Self.log(home, 2).contains("\(name) 1.0.0 (current, with 1 submodule mirror(s))"))
    }

    @Test("A build HOME whose .gitconfig cannot be written fails the build without network, naming the file, instead of going to the network")
    func gitConfigUnwritable() async throws {
        let package = try FixturePackage()
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\nnetwork: none\n")
        // A directory where the file goes: the write fails as a full or read-only disk's would.
        try FileManager.default.createDirectory(atPath: home.url(".kiln/homes/app/.gitconfig"), withIntermediateDirectories: true)
        let run = try await home.kilnRun()
        #expect(run.status == 1 && run.output.contains("result: build-errors"), "\(run.output)")
        let errors = try await home.recorded(1).issues.filter { $0.type == .error }.map(\.message)
        #expect(errors.contains { $0.hasPrefix("cannot write ") && $0.contains("homes/app/.gitconfig") }, "\(errors)")
    }
}
