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

@testable import KilnStore

@Suite("The workspace catalog: who holds which snapshot, the hosts' secret, where a workspace came from")
struct WorkspaceCatalogTests {
    static func snapshot(_ host: String, cell: String = "branch", number: Int, at created: Date) -> WorkspaceSnapshot {
        WorkspaceSnapshot(
            bot: "app", cell: cell, host: host, number: number, commit: "c\(number)", swiftVersion: "Swift version 6.3.1",
            seenAs: "/tmp/kiln/workspace/app",
            bytes: 1000 + number, sha256: String(repeating: "\(number)", count: 64), createdAt: created)
    }

    @Test(
        "Snapshots of live hosts that serve, newest first, one per host and cell; forgotten by cell or whole; one secret", arguments: Engine.allCases)
    func snapshots(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        for (name, address) in [("build-1", "http://127.0.0.1:1"), ("build-2", "http://127.0.0.1:2"), ("quiet", nil)] {
            try await store.heartbeat(
                HostReport(name: name, version: "1", executors: 1, busy: 0, botsDigest: "", lease: .seconds(3600), address: address))
        }
        try await store.recordSnapshot(Self.snapshot("build-1", number: 1, at: test.at(0)))
        try await store.recordSnapshot(Self.snapshot("build-2", number: 3, at: test.at(20)))
        try await store.recordSnapshot(Self.snapshot("quiet", number: 4, at: test.at(30)))
        try await store.recordSnapshot(Self.snapshot("build-1", cell: "default-debug-thread", number: 1, at: test.at(0)))
        try await store.recordSnapshot(Self.snapshot("build-1", number: 2, at: test.at(10)))

        let listed = try await store.snapshots(bot: "app", cell: "branch", elsewhereThan: "build-3")
        #expect(
            listed.map { "\($0.snapshot.host) #\($0.snapshot.number) \($0.address)" } == [
                "build-2 #3 http://127.0.0.1:2", "build-1 #2 http://127.0.0.1:1",
            ],
            "newest first; build-1's #1 replaced by #2; a host that serves nothing left out: \(engine)")
        #expect(listed.first?.snapshot == Self.snapshot("build-2", number: 3, at: test.at(20)), "every field kept: \(engine)")
        #expect(try await store.snapshots(bot: "app", cell: "branch", elsewhereThan: "build-2").map(\.snapshot.host) == ["build-1"])

        try await store.forgetSnapshots(bot: "app", cell: "branch", host: "build-1")
        #expect(try await store.snapshots(bot: "app", cell: "branch", elsewhereThan: "build-3").map(\.snapshot.host) == ["build-2"])
        let thread = { try await store.snapshots(bot: "app", cell: "default-debug-thread", elsewhereThan: "build-3").map(\.snapshot.host) }
        #expect(try await thread() == ["build-1"], "another cell's stays")
        try await store.forgetSnapshots(bot: "app", cell: nil, host: "build-1")
        #expect(try await thread().isEmpty, "a bot's whole")

        let secret = try await store.clusterSecret()
        #expect(secret.count >= 64)
        #expect(try await store.clusterSecret() == secret, "made once: \(engine)")
    }

    @Test("Where a workspace came from is kept with its integration, under its claim", arguments: Engine.allCases)
    func origin(engine: Engine) async throws {
        let test = try await TestStore(engine)
        _ = try await test.store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "c1", branch: "main"), now: test.at(0))
        let claim = try #require(try await test.store.claimNext(owner: "build-1 1 1", now: test.at(1)))
        #expect(try await test.store.integration(bot: "app", number: 1)?.integration.workspace == nil, "none before its checkout")
        let origin = WorkspaceOrigin.seeded(from: Self.snapshot("build-2", number: 3, at: test.at(0)), here: false, seconds: 0.5)
        try await test.store.setWorkspace(claim, origin: origin)
        #expect(try await test.store.integration(bot: "app", number: 1)?.integration.workspace == origin, "\(engine)")

        _ = try await test.store.recoverAbandoned(isAlive: { _ in false }, now: test.at(2))
        do {
            try await test.store.setWorkspace(claim, origin: .warm)
            Issue.record("a lost claim's write was accepted: \(engine)")
        } catch {
            guard case .claimLost = error else { throw error }
        }
    }
}
