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

/// Warm workspaces, on swift-argument-parser 1.8.2 from the machine's copy: the first
/// integration in a new workspace (a change to one source) against a cold one, on the host that
/// made the snapshot and on a second host that fetches it over loopback HTTP (two `kiln serve`
/// on one PostgreSQL); and what the file-hashing option every build now passes costs a build
/// that does nothing, by hand, alternating with and without it.
struct WarmBench {
    let kiln: String
    let work: Workspace
    static let git = "/usr/bin/git"

    func run(into table: Table) async throws {
        let copy = "/opt/swift-packages/apple/swift-argument-parser.git"
        guard FileManager.default.fileExists(atPath: copy) else {
            throw BenchError.unexpected("\(copy) is missing: this bench builds the machine's copy")
        }
        let repository = work.url("warm-package")
        try command(Self.git, ["clone", "-q", copy, repository])
        try command(Self.git, ["checkout", "-q", "-B", "main", "1.8.2"], in: repository)

        let postgres = try BenchPostgres(directory: work.url("warm-postgres"))
        defer { postgres.stop() }
        let url = try postgres.database("warm")
        let bots = [
            "app": "repository: {url: '\(repository)'}\nschedule: {poll: 0}\n",
            "sleeper": "repository: {url: '\(repository)'}\nschedule: {poll: 0}\ntriggers:\n  - {name: wait, phase: before, run: sleep 3600}\n",
        ]
        let one = try home("warm-one", host: "build-1", database: url, bots: bots)
        let first = try Server(kiln: kiln, home: one)
        defer { first.stop() }
        _ = try await first.port()
        let store = try await PostgresStore.open(DatabaseSettings(url: url))
        defer { store.close() }

        let cold = try await integrate(1, from: one, store: store)
        // Packed once the result is recorded, while the workspace is held: wait for it before
        // taking the workspace away.
        try await until("the snapshot of #1", timeout: 120) {
            FileManager.default.fileExists(atPath: DataDirectory(one + "/.kiln").snapshotManifest(of: "app", cell: "branch"))
        }
        var copies: [Timing] = []
        for number in 2...3 {
            try Self.change(repository, number)
            try FileManager.default.removeItem(atPath: DataDirectory(one + "/.kiln").workspace(of: "app"))
            copies.append(try await integrate(number, from: one, store: store, expecting: .copy))
        }
        let copied = copies.min { $0.whole < $1.whole } ?? cold
        table.add(
            "a new workspace's first integration, same host", target: "≤ 20 % of cold", measured: copied.against(cold),
            comparison: "swift-argument-parser 1.8.2, one source changed; from this host's snapshot (the lower of 2)")

        // build-1 busy with another bot, so that build-2 takes the integration into a new
        // workspace, from build-1's snapshot.
        try command(kiln, ["trigger", "sleeper"], in: one)
        try await until("build-1 busy") { try await store.integration(bot: "sleeper", number: 1)?.integration.isRunning == true }
        let two = try home("warm-two", host: "build-2", database: url, bots: bots)
        let second = try Server(kiln: kiln, home: two)
        defer { second.stop() }
        _ = try await second.port()
        try await until("both hosts serve") { try await store.hosts().filter { $0.address != nil }.count == 2 }
        try Self.change(repository, 4)
        let fetched = try await integrate(4, from: two, store: store, expecting: .snapshot)
        let workspace = try await store.integration(bot: "app", number: 4)?.integration.workspace
        table.add(
            "a new workspace's first integration, second host", target: "≤ 25 % of cold",
            measured: fetched.against(cold),
            comparison: String(
                format: "the snapshot (%.0f MB) fetched over loopback HTTP, checked and unpacked in %.2f s", Double(workspace?.bytes ?? 0) / 1e6,
                workspace?.seconds ?? 0))
        try Self.change(repository, 5)
        let warm = try await integrate(5, from: two, store: store, expecting: .warm)
        table.add(
            "the same change in a warm workspace", target: "for reference", measured: warm.against(cold),
            comparison: "build-2's workspace after its first integration")
    }

    /// A `kiln serve` home: its kiln.yml and bot files.
    private func home(_ name: String, host: String, database: String, bots: [String: String]) throws -> String {
        let home = work.url(name)
        try FileManager.default.createDirectory(atPath: home + "/Bots", withIntermediateDirectories: true)
        try "executors: 1\ndatabase: {url: '\(database)'}\nhost: \(host)\n".write(toFile: home + "/kiln.yml", atomically: false, encoding: .utf8)
        for (bot, text) in bots { try text.write(toFile: "\(home)/Bots/\(bot).yml", atomically: false, encoding: .utf8) }
        return home
    }

    /// Commits a change to one source of the package.
    static func change(_ repository: String, _ step: Int) throws {
        let file = repository + "/Sources/ArgumentParser/Usage/HelpGenerator.swift"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        try (text + "\n// change \(step)\n").write(toFile: file, atomically: false, encoding: .utf8)
        try command(Self.git, ["-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit", "-qam", "change \(step)"], in: repository)
    }

    /// Queues integration `number` of `app` from `home`'s server and waits for it: its duration.
    private func integrate(
        _ number: Int, from home: String, store: PostgresStore, expecting origin: WorkspaceOrigin.Kind = .cold
    ) async throws -> Timing {
        try command(kiln, ["trigger", "app"], in: home)
        try await until("integration #\(number)", timeout: 900) {
            try await store.integration(bot: "app", number: number)?.integration.step == .completed
        }
        // A build that held: the package's own tests may fail in the sandbox, the same in every run.
        let built: Set<IntegrationResult> = [.succeeded, .warnings, .testFailures]
        guard let detail = try await store.integration(bot: "app", number: number), let result = detail.integration.result,
            built.contains(result), let duration = detail.integration.duration
        else { throw BenchError.unexpected("integration #\(number) did not build (see \(home))") }
        let integration = detail.integration
        guard integration.workspace?.origin == origin else {
            throw BenchError.unexpected("integration #\(number)'s workspace: \(String(describing: integration.workspace)), not \(origin)")
        }
        return Timing(whole: duration, building: detail.steps.first { $0.name == .building }?.duration ?? 0)
    }

    /// An integration's time, and its `building` step's.
    struct Timing {
        var whole: Double
        var building: Double

        /// "12.0 s, 30 % of cold (40.0 s); building 1.0 s, 3 % of cold's 30.1 s"
        func against(_ cold: Timing) -> String {
            String(
                format: "%.1f s, %.0f %% of cold (%.1f s); building %.1f s, %.0f %% of cold's %.1f s", whole, whole / cold.whole * 100, cold.whole,
                building, building / cold.building * 100, cold.building)
        }
    }

    private func until(_ what: String, timeout: TimeInterval = 60, _ condition: () async throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError.unexpected("timed out waiting for \(what)")
    }
}
