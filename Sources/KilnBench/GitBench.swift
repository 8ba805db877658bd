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
import KilnGit

/// Git: a 5,000-commit repository; clone, fetch + checkout of one new commit, remote head — each
/// beside `git`'s own time for the same work.
struct GitBench {
    let work: Workspace
    let git = "/usr/bin/git"

    func run(into table: Table) async throws {
        let origin = work.url("origin")
        try makeRepository(at: origin, commits: 5000, files: 200)
        let repository = Repository(url: try RepositoryURL(parsing: origin, relativeTo: "/"))

        // First clone: Kiln's mirror against `git clone --mirror`.
        var cloneRound = 0
        let kilnClone = try await Measure.median(runs: 5) {
            cloneRound += 1
            _ = try await Mirrors(directory: work.url("clones/kiln-\(cloneRound)")).update(repository)
        }
        let gitClone = try await Measure.median(runs: 5) {
            cloneRound += 1
            try command(git, ["clone", "-q", "--mirror", origin, work.url("clones/git-\(cloneRound)")])
        }
        table.add(
            "first mirror clone, 5,000 commits, local path", target: "≤ 1.5 × git", measured: Measure.format(kilnClone),
            comparison: "git clone --mirror: \(Measure.format(gitClone)) (\(String(format: "%.2f", kilnClone / gitClone)) ×)")

        // The same over the network: git daemon on loopback packs, both clients receive and index.
        let daemon = try GitDaemon(serving: work.path)
        defer { daemon.stop() }
        let remote = Repository(url: try RepositoryURL(parsing: daemon.url("origin"), relativeTo: "/"))
        let kilnNetwork = try await Measure.median(runs: 5) {
            cloneRound += 1
            _ = try await Mirrors(directory: work.url("clones/kiln-\(cloneRound)")).update(remote)
        }
        let gitNetwork = try await Measure.median(runs: 5) {
            cloneRound += 1
            try command(git, ["clone", "-q", "--mirror", daemon.url("origin"), work.url("clones/git-\(cloneRound)")])
        }
        table.add(
            "first mirror clone, 5,000 commits, git://", target: "≤ 1.5 × git", measured: Measure.format(kilnNetwork),
            comparison: "git clone --mirror: \(Measure.format(gitNetwork)) (\(String(format: "%.2f", kilnNetwork / gitNetwork)) ×)")

        // One new commit: fetch into an up-to-date mirror, then check it out into a warm workspace.
        let mirrors = Mirrors(directory: work.url("mirrors"))
        let workspace = work.url("workspace")
        let head = try await mirrors.update(repository)
        try await mirrors.checkout(head, of: repository, into: workspace)
        var round = 0
        let kilnIncremental = try await Measure.median(runs: 9) {
            round += 1
            try newCommit(in: origin, round: round)
        } _: {
            let head = try await mirrors.update(repository)
            try await mirrors.checkout(head, of: repository, into: workspace)
        }
        let clone = work.url("git-clone")
        try command(git, ["clone", "-q", origin, clone])
        let gitIncremental = try await Measure.median(runs: 9) {
            round += 1
            try newCommit(in: origin, round: round)
        } _: {
            try command(git, ["fetch", "-q", "origin"], in: clone)
            try command(git, ["checkout", "-q", "--force", "origin/main"], in: clone)
        }
        table.add(
            "one new commit: fetch + checkout", target: "< 100 ms", measured: Measure.format(kilnIncremental),
            comparison: "git fetch + checkout: \(Measure.format(gitIncremental))")

        // Remote head, without fetching.
        let kilnHead = try await Measure.median(runs: 15) { _ = try await mirrors.remoteHead(repository) }
        let gitHead = try await Measure.median(runs: 15) { try command(git, ["ls-remote", origin, "refs/heads/main"]) }
        table.add(
            "remote head lookup, local path", target: "< 20 ms", measured: Measure.format(kilnHead),
            comparison: "git ls-remote: \(Measure.format(gitHead))")
        let kilnNetworkHead = try await Measure.median(runs: 15) { _ = try await mirrors.remoteHead(remote) }
        let gitNetworkHead = try await Measure.median(runs: 15) { try command(git, ["ls-remote", daemon.url("origin"), "refs/heads/main"]) }
        table.add(
            "remote head lookup, git://", target: "< 20 ms", measured: Measure.format(kilnNetworkHead),
            comparison: "git ls-remote: \(Measure.format(gitNetworkHead))")
    }

    /// Builds a repository of `commits` commits touching `files` files, through `git fast-import`.
    private func makeRepository(at path: String, commits: Int, files: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try command(git, ["init", "-q", "-b", "main"], in: path)
        var stream = ""
        stream.reserveCapacity(commits * 300)
        let start = 1_700_000_000
        for index in 1...commits {
            let file = "Sources/Module\(index % 20)/File\(index % files).swift"
            let contents = "// revision \(index)\nlet value\(index % files) = \(index)\n"
            stream += "commit refs/heads/main\nmark :\(index)\n"
            stream += "author Bench Author <bench@example.com> \(start + index * 60) +0000\n"
            stream += "committer Bench Author <bench@example.com> \(start + index * 60) +0000\n"
            let message = "Change \(index)\n"
            stream += "data \(message.utf8.count)\n\(message)"
            if index > 1 { stream += "from :\(index - 1)\n" }
            stream += "M 100644 inline \(file)\ndata \(contents.utf8.count)\n\(contents)\n"
        }
        try command(git, ["fast-import", "--quiet"], in: path, input: Data(stream.utf8))
        try command(git, ["checkout", "-q", "-f", "main"], in: path)
    }

    private func newCommit(in origin: String, round: Int) throws {
        let file = origin + "/Sources/Module0/New\(round).swift"
        try "let new\(round) = \(round)\n".write(toFile: file, atomically: false, encoding: .utf8)
        try command(git, ["add", "-A"], in: origin)
        try command(git, ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "round \(round)"], in: origin)
    }
}

/// `git daemon` on a free loopback port, serving the benchmark's directory.
final class GitDaemon {
    private let process = Process()
    let port: Int

    init(serving directory: String) throws {
        port = Int.random(in: 20_000..<60_000)
        let execPath = try command("/usr/bin/git", ["--exec-path"]).trimmingCharacters(in: .whitespacesAndNewlines)
        process.executableURL = URL(fileURLWithPath: execPath + "/git-daemon")
        process.arguments = ["--reuseaddr", "--export-all", "--listen=127.0.0.1", "--port=\(port)", "--base-path=\(directory)", directory]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            if (try? command("/usr/bin/git", ["ls-remote", url("origin")])) != nil { return }
            usleep(20_000)
        }
        stop()
        throw BenchError.unexpected("git daemon did not start on port \(port)")
    }

    func url(_ relative: String) -> String { "git://127.0.0.1:\(port)/\(relative)" }

    func stop() {
        sendSignal(SIGKILL, to: process.processIdentifier)
        process.waitUntilExit()
    }
}
