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
import KilnTestSupport
import Testing

@Suite("Snapshots are packed after the result, beside the next integration")
struct SnapshotPackingTests {
    @Test(
        "A build's snapshot is packed after its result: the server's one executor starts the next integration meanwhile, and the new snapshot replaces the stale one"
    )
    func packedBesideTheNext() async throws {
        let package = try FixturePackage()
        let quick = try ServerTests.quickRepository()
        // 200 MB of random bytes in .build make the pack take seconds at the lowest priority
        let app = """
            repository: {url: '\(package.repository.url)'}
            schedule: {poll: 0}
            triggers:
              - {name: ballast, phase: before, run: 'head -c 200000000 /dev/urandom > .build/ballast'}

            """
        let served = try await ServedHome(
            bots: ["app": app, "quick": "repository: {url: '\(quick.url)'}\nschedule: {poll: 0}\n"], seeded: ["app"])
        // The seed made two hours ago: stale (`WarmWorkspaces.refresh`), so #1 packs a new one.
        let layout = DataDirectory(served.home.url(".kiln"))
        let manifest = layout.snapshotManifest(of: "app", cell: "branch")
        var seed = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
        seed["createdAt"] = ISO8601DateFormatter().string(from: Date().addingTimeInterval(-7200))
        try JSONSerialization.data(withJSONObject: seed).write(to: URL(fileURLWithPath: manifest))

        for bot in ["app", "quick"] { _ = try await runProcess(Executables.kiln, ["trigger", bot], in: served.home.path) }
        try await served.eventually("both integrations", timeout: .seconds(120)) {
            try await served.integrations("quick").first?.step == .completed
        }
        let app1 = try #require(try await served.integrations("app").first)
        let quick1 = try #require(try await served.integrations("quick").first)
        #expect(app1.result == .succeeded && app1.workspace?.origin == .copy, "\(app1)")
        let seedHash = try #require(seed["sha256"] as? String)
        try await served.eventually("the snapshot of #1", timeout: .seconds(120)) {
            let made = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any]
            return (made?["sha256"] as? String).map { $0 != seedHash } ?? false
        }
        let packedAt = try #require(try FileManager.default.attributesOfItem(atPath: manifest)[.modificationDate] as? Date)
        let started = try #require(quick1.startedAt)
        let ended = try #require(app1.endedAt)
        #expect(ended <= started, "one executor: quick ran after app")
        #expect(started < packedAt, "the executor took quick #1 at \(started), before app #1's snapshot was packed at \(packedAt)")
        #expect(!served.server.standardOutput.contains("snapshot was not made"), "\(served.server.standardOutput)")
    }
}
