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
import KilnTestSupport
import Testing

@Suite("Module cache templates: the toolchain's modules compiled once per host, for every new sandboxed workspace")
struct ModuleCacheTests {
    /// Each file of a module cache (by its path in it) with its size and modification time.
    static func files(in folder: String) -> [String: String] {
        var found: [String: String] = [:]
        for case let path as String in FileManager.default.enumerator(atPath: folder)?.allObjects ?? [] {
            let full = "\(folder)/\(path)"
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: full), attributes[.type] as? FileAttributeType == .typeRegular
            else { continue }
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            found[path] = "\(attributes[.size] ?? 0) \(modified)"
        }
        return found
    }

    @Test(
        "After the first sandboxed bot's cold build Kiln makes the host's template from a package of its own; another bot's cold build starts from a copy and compiles none of the toolchain's modules again; what its build writes there never reaches the template"
    )
    func secondBotCompilesNoToolchainModule() async throws {
        let repo = try GitFixture()
        try repo.commit(
            "Lib",
            files: [
                ".gitignore": ".build/\n",
                "Package.swift": """
                // swift-tools-version: 6.0
                import PackageDescription
                let package = Package(name: "Lib", targets: [.target(name: "Lib"), .testTarget(name: "LibTests", dependencies: ["Lib"])])

                """,
                "Sources/Lib/Lib.swift": "import Foundation\n\npublic func stamp() -> Double { Date().timeIntervalSince1970 }\n",
                "Tests/LibTests/LibTests.swift":
                    "import Lib\nimport XCTest\n\nfinal class LibTests: XCTestCase {\n    func testStamp() { XCTAssertGreaterThan(stamp(), 0) }\n}\n",
            ])
        let home = try TemporaryDirectory()
        for bot in ["one", "two"] { try home.write("Bots/\(bot).yml", "repository: {url: '\(repo.url)'}\n") }
        // this data directory's own templates, not the folder a test run shares
        var environment = ProcessInfo.processInfo.environment
        environment["KILN_MODULE_CACHES"] = nil

        let first = try await runProcess(Executables.kiln, ["run", "one"], in: home.path, environment: environment)
        #expect(first.status == 0, "\(first.standardOutput) \(first.standardError)")
        let firstLog = try String(contentsOfFile: home.url(".kiln/logs/one/1.log"), encoding: .utf8)
        #expect(firstLog.contains("*** module caches: none compiled ahead on this host for this toolchain and configuration yet"), "\(firstLog)")
        let templates = try FileManager.default.contentsOfDirectory(atPath: home.url(".kiln/module-caches"))
        let template = home.url(".kiln/module-caches/\(try #require(templates.first { $0.hasSuffix("-debug") }, "\(templates)"))")
        let made = Self.files(in: template)
        #expect(made.keys.contains { $0.hasSuffix(".pcm") } && made.keys.contains { $0.hasSuffix(".swiftmodule") }, "\(made.keys.sorted())")

        let second = try await runProcess(Executables.kiln, ["run", "two"], in: home.path, environment: environment)
        #expect(second.status == 0, "\(second.standardOutput) \(second.standardError)")
        let secondLog = try String(contentsOfFile: home.url(".kiln/logs/two/1.log"), encoding: .utf8)
        #expect(
            secondLog.contains("*** module caches: the toolchain's modules compiled ahead, from this host's template (copied in "), "\(secondLog)")
        // Nothing of the template compiled again: its files are there as copied (size and time),
        // and the build added none beside them.
        let cache = home.url(".kiln/workspaces/two/.build/kiln/ModuleCache")
        let used = Self.files(in: cache).filter { !$0.key.hasSuffix("modules.timestamp") }
        #expect(used == made.filter { !$0.key.hasSuffix("modules.timestamp") }, "\(Set(used.keys).symmetricDifference(made.keys).sorted())")

        // A copy, not the template itself: a module the workspace's build overwrote stays its own.
        let module = try #require(used.keys.first { $0.hasSuffix(".pcm") })
        try Data("not a module".utf8).write(to: URL(fileURLWithPath: "\(cache)/\(module)"))
        #expect(Self.files(in: template) == made)
    }
}
