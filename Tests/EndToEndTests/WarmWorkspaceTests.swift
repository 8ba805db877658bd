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
import KilnPresentation
import KilnStore
import KilnTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A package with a dependency, its application's source changed by each commit, and the lines
/// that say what SwiftPM compiled.
struct WarmPackage {
    let dependency: GitFixture
    let application: GitFixture
    /// Where the dependency is served (by git daemon, as a remote package is fetched) under a
    /// name of its own: its repository's folder is `origin`, as the application's is, and
    /// SwiftPM knows a package by its URL's last component.
    let served: TemporaryDirectory
    let daemon: GitDaemon

    init() async throws {
        dependency = try GitFixture()
        try dependency.commit("Dep 1", files: NetworkNoneTests.dependency(1))
        try dependency.git("tag", "1.0.0")
        served = try TemporaryDirectory()
        let name = "dep-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createSymbolicLink(atPath: served.url(name), withDestinationPath: dependency.path)
        daemon = try GitDaemon(serving: served.path)
        application = try GitFixture()
        var files = NetworkNoneTests.application(dependency: "git://127.0.0.1:\(daemon.port)/\(name)", major: 1)
        files["Tests/AppTests/AppTests.swift"] = """
            import App
            import Foundation
            import XCTest

            final class AppTests: XCTestCase {
                func testVersion() { XCTAssertEqual(appVersion(), 1) }

                /// Long enough that a matrix's cells on two executors run at once.
                func testTakesTime() { Thread.sleep(forTimeInterval: 2) }
            }

            """
        try application.commit("App", files: files)
        try application.commit("Pin", files: ["Package.resolved": try await NetworkNoneTests.resolve(application)])
    }

    /// A new commit that changes the application's one source file.
    @discardableResult
    func change(_ step: Int) throws -> String {
        try application.commit(
            "Change \(step)", files: ["Sources/App/App.swift": "import Dep\n\n// change \(step)\npublic func appVersion() -> Int { depVersion() }\n"])
    }

    /// The modules SwiftPM compiled, by the lines it prints (`[8/19] Compiling App App.swift`).
    static func compiled(_ log: String) -> Set<String> {
        Set(
            log.split(separator: "\n").compactMap { line in
                guard let range = line.range(of: "] Compiling ") else { return nil }
                return line[range.upperBound...].split(separator: " ").first.map(String.init)
            })
    }
}

@Suite("Warm workspaces: a new workspace starts from a snapshot of the same bot and cell")
struct WarmWorkspaceTests {
    static func log(_ home: TemporaryDirectory, _ number: Int) async throws -> String {
        try await NetworkNoneTests.log(home, number)
    }

    @Test(
        "A new workspace starts from this host's snapshot and compiles only the changed module; a corrupted, truncated or other toolchain's snapshot is refused and the build runs cold, saying why; cache: none and clean: always start cold"
    )
    func sameHost() async throws {
        let package = try await WarmPackage()
        let home = try TemporaryDirectory()
        let bot = "repository: {url: '\(package.application.url)'}\n"
        try home.write("Bots/app.yml", bot)
        let layout = DataDirectory(home.url(".kiln"))
        let workspace = layout.workspace(of: "app")

        let first = try await home.kilnRun()
        #expect(first.status == 0, "\(first.output)")
        #expect(try await home.recorded(1).integration.workspace == .cold(.noSnapshot))
        let cold = WarmPackage.compiled(try await Self.log(home, 1))
        #expect(cold.isSuperset(of: ["Dep", "App"]), "a cold build compiles the dependency too: \(cold)")
        let manifest = try #require(FileManager.default.contents(atPath: layout.snapshotManifest(of: "app", cell: "branch")))
        #expect(String(decoding: manifest, as: UTF8.self).contains("\"number\":1"))

        // A new workspace (as a new executor slot, a replaced disk): from the snapshot of #1.
        try FileManager.default.removeItem(atPath: workspace)
        try package.change(2)
        let second = try await home.kilnRun()
        #expect(second.status == 0, "\(second.output)")
        let seeded = try #require(try await home.recorded(2).integration.workspace)
        #expect(seeded.origin == .copy && seeded.snapshot?.number == 1 && (seeded.bytes ?? 0) > 0, "\(seeded)")
        let log = try await Self.log(home, 2)
        #expect(log.contains("workspace: warm from this host's snapshot of #1 ("), "\(log)")
        let warm = WarmPackage.compiled(log)
        #expect(warm.contains("App") && !warm.contains("Dep"), "only what changed is compiled: \(warm)")

        // The workspace is there now: warm, as ever.
        try package.change(3)
        #expect(try await home.kilnRun().status == 0)
        #expect(try await home.recorded(3).integration.workspace == .warm)

        // A fork's pull request starts from the branch's snapshot, in a workspace of its own,
        // and leaves the snapshot as it was.
        let manifestPath = layout.snapshotManifest(of: "app", cell: "branch")
        let branchSnapshot = try #require(FileManager.default.contents(atPath: manifestPath))
        let app = package.application
        try app.git("checkout", "-q", "-b", "fork")
        let fork = try app.commit(
            "Fork", files: ["Sources/App/App.swift": "import Dep\n\n// a fork's change\npublic func appVersion() -> Int { depVersion() }\n"])
        try app.git("checkout", "-q", "main")
        try app.git("update-ref", "refs/pull/1/head", fork)
        let pull = try await runProcess(Executables.kiln, ["run", "app", "--pull", "1"], in: home.path)
        #expect(pull.status == 0, "\(pull.standardOutput)\(pull.standardError)")
        let forked = try await home.recorded(4).integration
        #expect(forked.pullRequest?.fork == true && forked.workspace?.origin == .copy && forked.workspace?.snapshot?.number == 1, "\(forked)")
        #expect(FileManager.default.fileExists(atPath: layout.workspace(of: "app", fork: true) + "/.build"))
        #expect(FileManager.default.contents(atPath: manifestPath) == branchSnapshot, "the fork's build changed no snapshot")

        // Snapshots refused: each leaves the build cold, saying why, and a good one takes its place.
        let refusals: [(String, (String, String) throws -> Void)] = [
            (
                "corrupted",
                { pack, _ in
                    let handle = try #require(FileHandle(forUpdatingAtPath: pack))
                    try handle.seek(toOffset: 1000)
                    let byte = try #require(try handle.read(upToCount: 1)?.first)
                    try handle.seek(toOffset: 1000)
                    try handle.write(contentsOf: [byte ^ 0xff])
                    try handle.close()
                }
            ),
            (
                "cut short",
                { pack, _ in
                    let size = try #require(try FileManager.default.attributesOfItem(atPath: pack)[.size] as? Int)
                    #expect(truncate(pack, off_t(size / 2)) == 0)
                }
            ),
            (
                "made with Swift version 5.10",
                { _, manifest in
                    let text = try String(contentsOfFile: manifest, encoding: .utf8)
                    let other = text.replacingOccurrences(
                        of: #""swiftVersion":"[^"]*""#, with: #""swiftVersion":"Swift version 5.10""#, options: .regularExpression)
                    try other.write(toFile: manifest, atomically: true, encoding: .utf8)
                }
            ),
        ]
        var number = 4
        for (why, spoil) in refusals {
            let data = try #require(FileManager.default.contents(atPath: manifestPath))
            let sha = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])["sha256"] as? String
            try spoil(layout.snapshot(of: "app", cell: "branch", sha256: try #require(sha)), manifestPath)
            try FileManager.default.removeItem(atPath: workspace)
            number += 1
            try package.change(number)
            let run = try await home.kilnRun()
            #expect(run.status == 0, "\(run.output)")
            let origin = try #require(try await home.recorded(number).integration.workspace)
            #expect(
                origin.origin == .cold && origin.reason?.sentence.contains("refused") == true && origin.reason?.sentence.contains(why) == true,
                "\(why): \(origin)")
            #expect(WarmPackage.compiled(try await Self.log(home, number)).contains("Dep"), "\(why): built cold")
            // Made again from this build: the next new workspace is warm.
            let remade = try #require(FileManager.default.contents(atPath: manifestPath))
            #expect(String(decoding: remade, as: UTF8.self).contains("\"number\":\(number)"), "\(why): a new snapshot")
        }

        // `cache: none`: a new workspace builds from nothing; `clean: always` wipes and stays cold.
        for (setting, reason) in [("cache: none", WorkspaceOrigin.ColdReason.cacheOff), ("clean: always", .wiped(clean: "always"))] {
            try home.write("Bots/app.yml", bot + setting + "\n")
            try? FileManager.default.removeItem(atPath: workspace)
            number += 1
            try package.change(number)
            #expect(try await home.kilnRun().status == 0)
            #expect(try await home.recorded(number).integration.workspace == .cold(reason), "\(setting)")
        }
    }
}

@Suite("Warm workspaces across executors and hosts, on PostgreSQL")
struct WarmWorkspaceHostsTests {
    /// A `kiln serve` of `home` (its kiln.yml and bots written first) on a free port.
    static func serve(_ home: TemporaryDirectory, config: String, bots: [String: String]) async throws -> ServedHome {
        try home.write("kiln.yml", config)
        for (name, text) in bots { try home.write("Bots/\(name).yml", text) }
        let served = ServedHome(home: home, server: try ServerProcess(arguments: ["serve", "--listen", "127.0.0.1:0"], in: home.path))
        _ = try await served.server.waitForPort()
        return served
    }

    static func cellLog(_ cell: Integration, in store: PostgresStore) async throws -> String {
        String(decoding: try await store.readLog(bot: cell.bot, number: cell.number, from: 0, limit: 1 << 22) ?? [], as: UTF8.self)
    }

    @Test(
        "A matrix of two cells on one executor, then two (each back in its own workspace; one gone, from this host's snapshot of its cell), then on a second host (each new workspace from build-1's snapshot, over HTTP; build-1 gone, cold): each says where it came from and compiles only the changed module"
    )
    func matrixAndHosts() async throws {
        let url = try await PostgresServer.shared.database()
        let package = try await WarmPackage()
        let bots = [
            // Two cells built incrementally (a release build compiles each module whole, so a copied
            // `.build` spares it less: its dependencies' checkouts, not their compiles).
            "app": "repository: {url: '\(package.application.url)'}\nschedule: {poll: 0}\nmatrix: {sanitizer: [none, thread]}\n",
            "sleeper": """
            repository: {url: '\(package.application.url)'}
            schedule: {poll: 0}
            triggers:
              - {name: wait, phase: before, run: sleep 600}

            """,
        ]
        let database = "database: {url: '\(url)'}\n"
        let buildOne = try TemporaryDirectory()
        var one = try await Self.serve(buildOne, config: "executors: 1\n\(database)host: build-1\n", bots: bots)
        let store = try await PostgresStore.open(DatabaseSettings(url: url), logsDirectory: nil)
        defer { store.close() }
        func integrate(_ number: Int, from home: TemporaryDirectory) async throws -> IntegrationDetail {
            _ = try await runProcess(Executables.kiln, ["trigger", "app"], in: home.path)
            try await one.eventually("integration #\(number)", timeout: .seconds(600)) {
                try await store.integration(bot: "app", number: number)?.integration.step == .completed
            }
            let detail = try #require(try await store.integration(bot: "app", number: number))
            var problems: [String] = []
            for cell in detail.cells where cell.result != .succeeded {
                let issues = try await store.integration(bot: "app", number: cell.number)?.issues ?? []
                // Its log's end too: the one time it happened, the error's message was empty.
                let log = try await store.readLog(bot: "app", number: cell.number, from: 0, limit: 1 << 20) ?? []
                problems.append(
                    "cell \(cell.number): " + issues.map(\.message).joined(separator: " | ") + "\n"
                        + String(decoding: log.suffix(3000), as: UTF8.self))
            }
            // Twice, under a full run's load, a cold cell on build-2 ended with a build error in a
            // second, its message empty: its issues and log say what the build said, should it
            // happen again.
            #expect(detail.integration.result == .succeeded, "#\(number): \(problems) \(detail.integration) \(detail.cells)")
            return detail
        }

        // One executor: the cells one after the other, each in a workspace of its own (a
        // sanitizer's build would replace the other cell's products), both cold.
        let first = try await integrate(1, from: buildOne)
        #expect(first.cells.map(\.workspaceSlot) == [0, 1], "\(first.cells.map(\.workspaceSlot))")
        #expect(first.cells.allSatisfy { $0.workspace == .cold(.noSnapshot) }, "\(first.cells.map(\.workspace))")
        #expect(first.integration.workspace == nil, "a matrix's integration builds nothing itself")

        // Two executors: the cells at once, each back in its own workspace, warm.
        _ = try await one.server.terminate()
        one = try await Self.serve(buildOne, config: "executors: 2\n\(database)host: build-1\n", bots: bots)
        try package.change(2)
        let second = try await integrate(2, from: buildOne)
        #expect(second.cells.map(\.workspaceSlot) == [0, 1] && second.cells.allSatisfy { $0.workspace == .warm }, "\(second.cells)")
        let ran = try #require(second.cells.compactMap(\.startedAt).max())
        #expect(second.cells.allSatisfy { ($0.endedAt ?? .distantPast) > ran }, "at once: \(second.cells)")

        // A workspace gone (a disk replaced): the cell's next one starts from this host's
        // snapshot of that cell.
        try FileManager.default.removeItem(atPath: DataDirectory(buildOne.url(".kiln")).workspace(of: "app", slot: 1))
        try package.change(3)
        let third = try await integrate(3, from: buildOne)
        let copied = try #require(third.cells.first { $0.workspaceSlot == 1 }?.workspace, "\(third.cells)")
        #expect(copied.origin == .copy && copied.snapshot?.host == "build-1" && copied.snapshot?.number == 1, "\(copied)")
        for cell in second.cells + third.cells {
            let compiled = WarmPackage.compiled(try await Self.cellLog(cell, in: store))
            #expect(compiled.contains("App") && !compiled.contains("Dep"), "\(cell.cell?.name ?? ""): \(compiled)")
        }

        // build-1 busy with another bot; build-2 takes both cells, each into a new workspace
        // started from build-1's snapshot of its cell, fetched over HTTP.
        _ = try await one.server.terminate()
        one = try await Self.serve(buildOne, config: "executors: 1\n\(database)host: build-1\n", bots: bots)
        _ = try await runProcess(Executables.kiln, ["trigger", "sleeper"], in: buildOne.path)
        try await one.eventually("build-1 busy") { try await store.integration(bot: "sleeper", number: 1)?.integration.isRunning == true }
        let buildTwo = try TemporaryDirectory()
        let two = try await Self.serve(buildTwo, config: "executors: 2\n\(database)host: build-2\n", bots: bots)
        try await one.eventually("both hosts serve") { try await store.hosts().filter { $0.address != nil }.count == 2 }
        try package.change(4)
        let fourth = try await integrate(4, from: buildTwo)
        for cell in fourth.cells {
            let origin = try #require(cell.workspace, "\(cell)")
            #expect(cell.host == "build-2" && origin.origin == .snapshot && origin.snapshot?.host == "build-1", "\(cell.cell?.name ?? ""): \(origin)")
            let compiled = WarmPackage.compiled(try await Self.cellLog(cell, in: store))
            #expect(compiled.contains("App") && !compiled.contains("Dep"), "\(cell.cell?.name ?? ""): \(compiled)")
        }
        // The JSON says so too.
        let port = try await two.server.waitForPort()
        let (json, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/api/bots/app/integrations/4")))
        let cells = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])["cells"] as? [[String: Any]]
        #expect(cells?.compactMap { ($0["workspace"] as? [String: Any])?["origin"] as? String } == ["snapshot", "snapshot"], "\(cells ?? [])")

        // And the page, in each cell's row.
        let snapshot = try #require(fourth.cells.first?.workspace?.snapshot)
        let (html, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/bots/app/integrations/4")))
        #expect(String(decoding: html, as: UTF8.self).components(separatedBy: "build-1&#39;s snapshot of #\(snapshot.number) (").count == 3)

        // Host to host only: without the hosts' secret, or with another, nothing is there.
        let served = try #require(
            try await store.snapshots(bot: "app", cell: "default-debug-none", elsewhereThan: "build-2").first { $0.snapshot.host == "build-1" })
        #expect(served.snapshot.number == snapshot.number)
        let address = try #require(URL(string: "\(served.address)/hosts/snapshots/app/default-debug-none/\(served.snapshot.sha256)"))
        for secret in [nil, "guess", try await store.clusterSecret()] {
            var request = URLRequest(url: address)
            request.setValue(secret, forHTTPHeaderField: "X-Kiln-Host-Secret")
            let (body, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode
            if secret == nil || secret == "guess" {
                #expect(status == 404, "\(secret ?? "no secret"): \(String(describing: status))")
            } else {
                #expect(status == 200 && body.count == served.snapshot.bytes, "\(String(describing: status)) \(body.count)")
            }
        }
        // build-1 gone (stopped: its lease still runs) when build-2 starts new workspaces: the
        // fetch fails, and costs only the seed.
        one.server.sigkill()
        let layoutTwo = DataDirectory(buildTwo.url(".kiln"))
        for path in [layoutTwo.snapshots, layoutTwo.workspace(of: "app"), layoutTwo.workspace(of: "app", slot: 1)] {
            try FileManager.default.removeItem(atPath: path)
        }
        try package.change(5)
        let fifth = try await integrate(5, from: buildTwo)
        for cell in fifth.cells {
            let origin = try #require(cell.workspace, "\(cell)")
            #expect(
                origin.origin == .cold && origin.reason?.sentence.contains("build-1's snapshot of #") == true
                    && origin.reason?.sentence.contains("fetching it from") == true,
                "\(origin)")
        }

        // The bot's file gone: its snapshots go with it, from the disk and from the store.
        let made = layoutTwo.snapshots + "/app"
        try await two.eventually("build-2's snapshots of #5") { FileManager.default.fileExists(atPath: made) }
        try FileManager.default.removeItem(atPath: buildTwo.url("Bots/app.yml"))
        try await two.eventually("the snapshots removed with their bot") {
            let listed = try await store.snapshots(bot: "app", cell: "default-debug-none", elsewhereThan: "build-1")
            return !FileManager.default.fileExists(atPath: made) && listed.isEmpty
        }
        _ = try await two.server.terminate()
    }
}
