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
import KilnStore
import KilnTestSupport
import Testing

/// What an earlier run left and this one cannot remove stops the integration, saying what to
/// remove, instead of building on it as if it were gone. An immutable file (`chattr +i`) refuses
/// removal even to root, as a read-only or foreign-owned file would.
@Suite("Files an earlier run left that cannot be removed")
struct StaleFileTests {
    /// Makes `path` immutable until the returned cleanup runs.
    static func immutable(_ path: String) throws -> () -> Void {
        let set = try runProcessSync("/usr/bin/chattr", ["+i", path])
        try #require(set.status == 0, "chattr +i \(path): \(set.standardError) (chattr is Debian's e2fsprogs, on an ext4 /tmp)")
        return { _ = try? runProcessSync("/usr/bin/chattr", ["-i", path]) }
    }

    @Test("A workspace that clean: always cannot wipe ends the integration naming the file, instead of building on what was left")
    func workspaceNotWiped() async throws {
        let package = try FixturePackage()
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\nclean: always\n")
        try home.write(".kiln/workspaces/app/left-over.o", "an earlier build's object\n")
        let release = try Self.immutable(home.url(".kiln/workspaces/app/left-over.o"))
        defer { release() }

        let run = try await home.kilnRun()
        #expect(run.status == 1 && run.output.contains("result: internal-error"), "\(run.output)")
        let reason = try await home.recorded(1).integration.reason?.sentence ?? ""
        #expect(reason.contains("cannot remove") && reason.contains("workspaces/app"), "\(reason)")
    }

    @Test("Test events an earlier run left that cannot be removed end the integration, instead of being read as this run's tests")
    func eventsNotRemoved() async throws {
        let package = try FixturePackage()
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: '\(package.repository.url)'}\n")
        try await home.seed()
        // Another run's passing test, which this run's failing one must never be mistaken for.
        try home.write(".kiln/homes/app/.kiln-test-events.jsonl", "{\"kind\":\"testEnded\"}\n")
        let release = try Self.immutable(home.url(".kiln/homes/app/.kiln-test-events.jsonl"))
        defer { release() }

        let run = try await home.kilnRun()
        #expect(run.status == 1 && run.output.contains("result: internal-error"), "\(run.output)")
        let reason = try await home.recorded(1).integration.reason?.sentence ?? ""
        #expect(reason.contains("cannot remove") && reason.contains(".kiln-test-events.jsonl"), "\(reason)")
    }
}
