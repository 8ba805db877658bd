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

import Crypto
import Foundation
import KilnCore
import KilnPresentation
import KilnStore
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("kiln run: archives")
struct ArchiveTests {
    static let manifest = """
        // swift-tools-version: 6.0
        import PackageDescription

        let package = Package(
            name: "Fixture",
            products: [.executable(name: "hello", targets: ["hello"])],
            targets: [
                .target(name: "Lib"),
                .executableTarget(name: "hello", dependencies: ["Lib"]),
                .testTarget(name: "LibTests", dependencies: ["Lib"]),
                .testTarget(name: "LibSwiftTests", dependencies: ["Lib"]),
            ]
        )

        """

    @Test(
        "The product is built in release, packed with the named files, kept and handed to after triggers; an oversized archive and a product that does not build are refused with their reasons"
    )
    func archive() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        let repo = package.repository
        try repo.commit(
            "An executable",
            files: [
                "Package.swift": Self.manifest,
                "Sources/hello/main.swift": "import Lib\nprint(\"hello 1.0, \\(add(1, 2))\")\n",
                "docs/guide/index.html": "<p>guide</p>\n",
                "docs/notes.txt": "not asked for\n",
                "CHANGELOG.md": "# 1.0\n",
            ])
        // Written in the bot's HOME, which its sandboxed trigger may write.
        let shipped = home.url(".kiln/homes/app/shipped.txt")
        let bot = { (archive: String) in
            """
            repository: {url: '\(repo.url)'}
            test: {enabled: false}
            archive: {\(archive)}
            triggers:
              - {name: ship, phase: after, run: 'echo "$KILN_ARCHIVE" > "$HOME/shipped.txt"; ls "$KILN_ASSETS" "$KILN_ASSETS/bin" >> "$HOME/shipped.txt"'}

            """
        }
        try home.write("Bots/app.yml", bot("products: [hello], files: ['docs/**/*.html', CHANGELOG.md]"))
        try await home.seed()

        let first = try await home.kilnRun()
        #expect(first.status == 0 && first.output.contains("result: succeeded"), "\(first.output)")
        let one = try await home.recorded(1)
        #expect(one.steps.map(\.name) == [.checkout, .beforeTriggers, .building, .archiving, .processing, .afterTriggers])
        let asset = try #require(one.assets.first, "\(one.assets)")
        #expect(asset.name == "app.tar.gz")
        let kept = home.url(".kiln/assets/app/1/app.tar.gz")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: kept))
        #expect(bytes.count == asset.size)
        #expect(SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() == asset.sha256)

        let unpacked = try TemporaryDirectory()
        _ = try await runProcess("/usr/bin/tar", ["-xzf", kept, "-C", unpacked.path])
        let hello = try await runProcess(unpacked.url("bin/hello"), [])
        #expect(hello.standardOutput == "hello 1.0, 3\n", "the archived binary runs")
        #expect(FileManager.default.fileExists(atPath: unpacked.url("docs/guide/index.html")))
        #expect(FileManager.default.fileExists(atPath: unpacked.url("CHANGELOG.md")))
        #expect(!FileManager.default.fileExists(atPath: unpacked.url("docs/notes.txt")), "only the files the globs name")
        let trigger = try String(contentsOfFile: shipped, encoding: .utf8)
        #expect(
            trigger.hasPrefix("/") && trigger.contains("app.tar.gz\n") && trigger.contains("CHANGELOG.md\n") && trigger.contains("hello\n"),
            "\(trigger)")

        // Over max-size: refused with its reason, the integration otherwise as it was.
        try home.write("Bots/app.yml", bot("products: [hello], max-size: 1KiB"))
        let second = try await home.kilnRun()
        #expect(second.status == 0 && second.output.contains("result: succeeded"), "\(second.output)")
        let two = try await home.recorded(2)
        #expect(two.assets.isEmpty)
        #expect(
            two.integration.reason?.sentence.contains("is over archive.max-size (1.0 KiB)") == true,
            "\(two.integration.reason?.sentence ?? "no reason")")

        // A product that is not there is a build error, with SwiftPM's words.
        try home.write("Bots/app.yml", bot("products: [nothere]"))
        let third = try await home.kilnRun()
        #expect(third.status == 1 && third.output.contains("result: build-errors"), "\(third.output)")
        let three = try await home.recorded(3)
        #expect(three.assets.isEmpty)
        #expect(three.issues.contains { $0.type == .error && $0.message.contains("nothere") }, "\(three.issues)")
    }

    @Test("With a matrix, the cell archive.cell names archives, and the archive is its integration's")
    func matrixArchive() async throws {
        let home = try TemporaryDirectory()
        let package = try FixturePackage()
        try package.repository.commit(
            "An executable", files: ["Package.swift": Self.manifest, "Sources/hello/main.swift": "import Lib\nprint(\"hello \\(add(1, 2))\")\n"])
        try home.write(
            "Bots/app.yml",
            """
            repository: {url: '\(package.repository.url)'}
            test: {enabled: false}
            matrix: {configuration: [debug, release]}
            archive: {products: [hello], cell: default-release-none}

            """)
        let run = try await home.kilnRun()
        #expect(run.status == 0 && run.output.contains("result: succeeded"), "\(run.output)")
        let one = try await home.recorded(1)
        #expect(one.assets.map(\.name) == ["app.tar.gz"], "\(one.assets)")
        let store = try SQLiteStore.open(dataDirectory: home.url(".kiln"))
        var archiving: [Bool] = []
        for cell in one.cells {
            archiving.append(try await store.integration(bot: "app", number: cell.number)?.steps.contains { $0.name == .archiving } == true)
        }
        #expect(archiving == [false, true], "only the release cell archives")
        #expect(FileManager.default.fileExists(atPath: home.url(".kiln/assets/app/1/app.tar.gz")))

        try home.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\narchive: {products: [hello], cell: default-release-none}\n")
        let refused = try await runProcess(Executables.kiln, ["validate"], in: home.path)
        #expect(
            refused.status == 1
                && refused.standardOutput.contains(
                    "'cell' names a cell of the matrix to archive from, not 'default-release-none': the bot has no matrix"),
            "\(refused.standardOutput)")
    }

    @Test("On PostgreSQL, an archive one host built downloads whole and in part through another host")
    func anotherHost() async throws {
        let url = try await PostgresServer.shared.database()
        let package = try FixturePackage()
        try package.repository.commit(
            "An executable", files: ["Package.swift": Self.manifest, "Sources/hello/main.swift": "print(\"hello\")\n"])
        let bot = "repository: {url: '\(package.repository.url)'}\nschedule: {poll: 0}\ntest: {enabled: false}\narchive: {products: [hello]}\n"
        let builder = try TemporaryDirectory()
        try builder.write("kiln.yml", "database: {url: '\(url)'}\nhost: build-1\n")
        try builder.write("Bots/app.yml", bot)
        let built = try await builder.kilnRun()
        #expect(built.status == 0 && built.output.contains("result: succeeded"), "\(built.output)")

        let served = try await ServedHome(bots: ["app": bot], config: "executors: 1\ndatabase: {url: '\(url)'}\nhost: build-2\n")
        let store = try await PostgresStore.open(DatabaseSettings(url: url))
        let asset = try #require(try await store.integration(bot: "app", number: 1)?.assets.first)
        let port = try await served.server.waitForPort()
        let address = try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/1/assets/app.tar.gz"))
        let (whole, response) = try await URLSession.shared.data(from: address)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(whole.count == asset.size)
        #expect(SHA256.hash(data: whole).map { String(format: "%02x", $0) }.joined() == asset.sha256, "the bytes build-1 kept")
        var request = URLRequest(url: address)
        request.setValue("bytes=10-19", forHTTPHeaderField: "Range")
        let (part, partial) = try await URLSession.shared.data(for: request)
        #expect((partial as? HTTPURLResponse)?.statusCode == 206 && part == whole[10..<20])
        let (_, latest) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/latest/app.tar.gz")))
        let landed = (latest as? HTTPURLResponse)?.url?.path ?? ""
        #expect(landed.hasPrefix("/bots/app/integrations/") && landed.hasSuffix("/assets/app.tar.gz"), "latest redirects: \(landed)")
        _ = try await served.server.terminate()
    }
}
