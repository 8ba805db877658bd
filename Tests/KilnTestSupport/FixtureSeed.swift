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

/// `FixturePackage` built once per test run, shared as Kiln shares a build between workspaces: a
/// workspace snapshot (`docs/guide.md#warm-workspaces`) that a test copies into its data
/// directory before its first integration, which then starts warm from it instead of building
/// the package from nothing (a cold build takes ~9 s of both cores; the snapshot unpacks in a
/// fraction of one).
///
/// The snapshot is made by `kiln run` on a bot of the same name with default settings, so that
/// its `.build` was seen at the path the test's sandboxed build sees (`/tmp/kiln/workspace/<bot>`);
/// Kiln checks it (size, SHA-256, compiler) and restores the times of the sources whose content
/// is unchanged, so only what a test changed is built. A test whose point is a cold workspace,
/// or what a first build compiles, does not take a seed.
public actor FixtureSeed {
    public static let shared = FixtureSeed()

    /// The snapshot's description (`branch.json`), its pack, and the pack's SHA-256.
    struct Files: Sendable {
        var manifest: [String: any Sendable]
        var pack: Data
        var sha256: String
    }

    private var made: [String: Task<Files, any Error>] = [:]

    /// Copies the snapshot of `FixturePackage` as bot `bot` into the data directory `data`
    /// (`<home>/.kiln`), made on first use: as the snapshot of each of `cells` (`branch`, a bot
    /// without a matrix; a matrix cell's name, such as `default-debug-none`, for a cell that
    /// builds as the bot without a matrix does).
    public func install(bot: String = "app", cells: [String] = ["branch"], into data: String) async throws {
        let task: Task<Files, any Error>
        if let existing = made[bot] {
            task = existing
        } else {
            task = Task { try await Self.make(bot: bot) }
            made[bot] = task
        }
        let seed = try await task.value
        let directory = "\(data)/snapshots/\(bot)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for cell in cells {
            var manifest = seed.manifest
            manifest["cell"] = cell
            let description = try JSONSerialization.data(withJSONObject: manifest as [String: Any])
            try seed.pack.write(to: URL(fileURLWithPath: "\(directory)/\(cell).\(seed.sha256).tar.zst"))
            try description.write(to: URL(fileURLWithPath: "\(directory)/\(cell).json"))
        }
    }

    private static func make(bot: String) async throws -> Files {
        let package = try FixturePackage()
        let home = try TemporaryDirectory("kiln-seed")
        try home.write("Bots/\(bot).yml", "repository: {url: '\(package.repository.url)'}\n")
        let run = try await runProcess(Executables.kiln, ["run", bot], in: home.path)
        let directory = home.url(".kiln/snapshots/\(bot)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        guard run.status == 0, let data = FileManager.default.contents(atPath: "\(directory)/branch.json"),
            let manifest = try JSONSerialization.jsonObject(with: data) as? [String: any Sendable], let sha256 = manifest["sha256"] as? String,
            let pack = FileManager.default.contents(atPath: "\(directory)/branch.\(sha256).tar.zst")
        else {
            throw FixtureSeedError.notMade(status: run.status, output: run.standardOutput + run.standardError, files: names)
        }
        return Files(manifest: manifest, pack: pack, sha256: sha256)
    }
}

public enum FixtureSeedError: Error, CustomStringConvertible {
    case notMade(status: Int32, output: String, files: [String])

    public var description: String {
        switch self {
        case .notMade(let status, let output, let files):
            "kiln run on FixturePackage made no workspace snapshot (exit \(status); snapshots: \(files)); its output:\n\(output)"
        }
    }
}
