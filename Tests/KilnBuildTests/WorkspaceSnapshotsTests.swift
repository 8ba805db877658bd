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
import KilnBuild
import KilnCore
import KilnTestSupport
import Testing

@Suite("Workspace snapshots on one host: packing, checking, the size bound")
struct WorkspaceSnapshotsTests {
    /// A workspace of bot `name` whose `.build` holds `bytes` of random data (which zstd cannot
    /// shrink).
    static func workspace(_ name: String, bytes: Int, in layout: DataDirectory) throws -> Workspace {
        let bot = Bot(name: name, repository: Repository(url: try RepositoryURL(parsing: "/srv/git/\(name).git", relativeTo: "/")))
        let directory = layout.workspace(of: name) + "/.build/debug"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        try Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: directory + "/product"))
        return Workspace(
            bot: bot, number: 1, layout: layout, serverEnvironment: [:], log: IntegrationLog(path: layout.log(of: name, number: 1), secrets: []),
            deadline: .now + .seconds(60))
    }

    @Test("A pack unpacks into a new workspace as it was; the oldest snapshots go beyond cache.max-size, and one larger than it alone is not kept")
    func packsAndBounds() async throws {
        let data = try TemporaryDirectory()
        let layout = DataDirectory(data.path)
        let snapshots = WorkspaceSnapshots(layout: layout, host: "build-1", maxSize: 450_000)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let one = try Self.workspace("one", bytes: 200_000, in: layout)
        let (first, dropped) = try await snapshots.pack(one, cell: "branch", number: 1, commit: "a", swiftVersion: "Swift 6", now: now)
        #expect(dropped.isEmpty && first.bytes > 200_000 && first.host == "build-1" && snapshots.snapshot(of: "one", cell: "branch") == first)

        // Unpacked into a workspace without `.build`: the same bytes.
        let original = try Data(contentsOf: URL(fileURLWithPath: layout.workspace(of: "one") + "/.build/debug/product"))
        try FileManager.default.removeItem(atPath: layout.workspace(of: "one") + "/.build")
        try await snapshots.unpack(first, from: layout.snapshot(of: "one", cell: "branch", sha256: first.sha256), into: one, swiftVersion: "Swift 6")
        #expect(try Data(contentsOf: URL(fileURLWithPath: layout.workspace(of: "one") + "/.build/debug/product")) == original)
        await #expect(throws: SnapshotError.toolchain(made: "Swift 6", here: "Swift 7")) {
            try await snapshots.unpack(
                first, from: layout.snapshot(of: "one", cell: "branch", sha256: first.sha256), into: one, swiftVersion: "Swift 7")
        }

        // A second bot's snapshot fits beside it; a third's does not: the oldest goes.
        let two = try Self.workspace("two", bytes: 200_000, in: layout)
        #expect(try await snapshots.pack(two, cell: "branch", number: 1, commit: "b", swiftVersion: "Swift 6", now: now + 60).dropped.isEmpty)
        let three = try Self.workspace("three", bytes: 200_000, in: layout)
        let (third, evicted) = try await snapshots.pack(three, cell: "branch", number: 1, commit: "c", swiftVersion: "Swift 6", now: now + 120)
        #expect(evicted == [first] && snapshots.snapshot(of: "one", cell: "branch") == nil)
        #expect(!FileManager.default.fileExists(atPath: layout.snapshot(of: "one", cell: "branch", sha256: first.sha256)))
        #expect(Set(snapshots.all().map(\.bot)) == ["two", "three"] && snapshots.snapshot(of: "three", cell: "branch") == third)

        // Replacing a snapshot removes the pack it replaces.
        let (again, _) = try await snapshots.pack(three, cell: "branch", number: 2, commit: "d", swiftVersion: "Swift 6", now: now + 180)
        let packs = try FileManager.default.contentsOfDirectory(atPath: layout.snapshots + "/three").filter { $0.hasSuffix(".tar.zst") }
        #expect(packs == ["branch.\(again.sha256).tar.zst"], "\(packs)")

        // Larger than the bound alone: made, then not kept.
        let large = try Self.workspace("large", bytes: 500_000, in: layout)
        let (made, gone) = try await snapshots.pack(large, cell: "branch", number: 1, commit: "e", swiftVersion: "Swift 6", now: now + 240)
        #expect(gone == [made] && snapshots.snapshot(of: "large", cell: "branch") == nil)
        #expect(Set(snapshots.all().map(\.bot)) == ["two", "three"], "the others stay")
    }
}
