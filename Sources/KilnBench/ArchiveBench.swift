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

/// Archives: what the archiving step costs beyond SwiftPM's release build and `tar`, and how a
/// 100 MiB asset downloads through `kiln serve` against reading the same file with curl.
struct ArchiveBench {
    let kiln: String
    let work: Workspace

    func run(into table: Table) async throws {
        try await overhead(into: table)
        try await download(into: table)
    }

    /// `kiln run` of an unchanged commit with `archive` and without, against the tools alone.
    private func overhead(into table: Table) async throws {
        let repository = work.url("archive-package")
        try FileManager.default.createDirectory(atPath: repository + "/Sources/hello", withIntermediateDirectories: true)
        try """
        // swift-tools-version: 6.0
        import PackageDescription
        let package = Package(name: "Hello", products: [.executable(name: "hello", targets: ["hello"])], targets: [.executableTarget(name: "hello")])

        """.write(toFile: repository + "/Package.swift", atomically: false, encoding: .utf8)
        try "print(\"hello\")\n".write(toFile: repository + "/Sources/hello/main.swift", atomically: false, encoding: .utf8)
        try ".build/\n".write(toFile: repository + "/.gitignore", atomically: false, encoding: .utf8)
        let git = { (arguments: [String]) in
            _ = try command("/usr/bin/git", ["-c", "user.name=Bench", "-c", "user.email=bench@example.com"] + arguments, in: repository)
        }
        try git(["init", "-q", "-b", "main"])
        try git(["add", "-A"])
        try git(["commit", "-q", "-m", "hello"])
        let home = work.url("archive-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        for (name, archive) in [("plain", ""), ("archived", "archive: {products: [hello]}\n")] {
            try "repository: {url: '\(repository)'}\ntest: {enabled: false}\n\(archive)".write(
                toFile: home + "/Bots/\(name).yml", atomically: false, encoding: .utf8)
            _ = try command(kiln, ["run", name], in: home)  // cold: builds once
        }
        let workspace = home + "/.kiln/workspaces/archived"
        let staged = work.url("archive-staged")
        try FileManager.default.createDirectory(atPath: staged + "/bin", withIntermediateDirectories: true)
        var (plain, archived, tools): ([Double], [Double], [Double]) = ([], [], [])
        for _ in 0..<7 {
            plain.append(try timed { _ = try command(kiln, ["run", "plain"], in: home) })
            archived.append(try timed { _ = try command(kiln, ["run", "archived"], in: home) })
            tools.append(
                try timed {
                    _ = try command("/usr/bin/env", ["swift", "build", "-c", "release", "--product", "hello"], in: workspace)
                    try? FileManager.default.removeItem(atPath: staged + "/bin/hello")
                    try FileManager.default.copyItem(atPath: workspace + "/.build/release/hello", toPath: staged + "/bin/hello")
                    _ = try command("/usr/bin/env", ["tar", "-czf", work.url("hello.tar.gz"), "-C", staged, "."])
                })
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let overhead = median(archived) - median(plain) - median(tools)
        table.add(
            "archive: Kiln's own cost beyond the release build and tar", target: "< 100 ms", measured: Measure.format(overhead),
            comparison:
                "kiln run with archive \(Measure.format(median(archived))), without \(Measure.format(median(plain))), SwiftPM and tar alone \(Measure.format(median(tools))); medians of 7"
        )
    }

    /// A 100 MiB asset through `kiln serve` (SQLite: a file in the data directory) against curl
    /// reading it from the disk, and the server's private memory meanwhile.
    private func download(into table: Table) async throws {
        let home = work.url("asset-home")
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        let file = work.url("blob.tar.gz")
        let size = 100 << 20
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        var piece = Data((0..<(1 << 20)).map { _ in UInt8.random(in: 0...255) })
        for index in 0..<(size >> 20) {
            piece[0] = UInt8(truncatingIfNeeded: index)
            try handle.write(contentsOf: piece)
        }
        try handle.close()
        do {
            let store = try SQLiteStore.open(dataDirectory: home + "/.kiln")
            _ = try await store.enqueue(QueueRequest(bot: "blob", cause: .manual, commit: "abc1234", branch: "main"), now: Date())
            guard let claim = try await store.claimNext(owner: "bench", now: Date()) else { throw BenchError.unexpected("nothing to claim") }
            try await store.storeAsset(Asset(name: "blob.tar.gz", size: size, sha256: "00"), from: file, for: claim)
            _ = try await store.complete(claim, outcome: IntegrationOutcome(result: .succeeded), now: Date())
        }
        let server = try Server(kiln: kiln, home: home)
        let port = try await server.port()
        defer { server.stop() }
        try await WebBench.waitForHTTP("http://127.0.0.1:\(port)/health")
        let before = server.residentMegabytes("RssAnon")
        let url = "http://127.0.0.1:\(port)/bots/blob/integrations/1/assets/blob.tar.gz"
        var (served, read, peak) = ([Double](), [Double](), before)
        for _ in 0..<5 {
            served.append(try speed(url))
            peak = max(peak, server.residentMegabytes("RssAnon"))
            read.append(try speed("file://" + file))
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let ratio = median(served) / median(read) * 100
        table.add(
            "archive: a 100 MiB asset downloaded through Kiln", target: "≥ 80 % of curl file://", measured: String(format: "%.0f %%", ratio),
            comparison: String(
                format: "%.0f MiB/s through kiln serve, %.0f MiB/s from the disk (medians of 5); server private memory %.1f MB before, %.1f MB after",
                median(served), median(read), before, peak))
    }

    /// curl's download speed of `url`, in MiB/s.
    private func speed(_ url: String) throws -> Double {
        let output = try command("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{speed_download}", url])
        return (Double(output) ?? 0) / Double(1 << 20)
    }

    private func timed(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return Measure.milliseconds(ContinuousClock.now - start)
    }
}
