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
import KilnTestSupport
import Testing

@Suite("Store: assets")
struct AssetStoreTests {
    @Test(
        "An asset is kept with its integration, read whole and in ranges, found as the latest accepted, refused to a lost claim, deleted by retention",
        arguments: Engine.allCases)
    func assets(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        // 2.4 MiB: three chunks where the bytes are in the database.
        let bytes = (0..<2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
        let file = test.directory.url("app.tar.gz")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let asset = Asset(name: "app.tar.gz", size: bytes.count, sha256: "9f86d081884c7d65")

        func archived(_ result: IntegrationResult, at seconds: Double) async throws -> Claim {
            _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "c\(seconds)", branch: "main"), now: test.at(seconds))
            let claim = try #require(try await store.claimNext(owner: "test", now: test.at(seconds + 1)))
            try await store.storeAsset(asset, from: file, for: claim)
            try await store.complete(claim, outcome: IntegrationOutcome(result: result), now: test.at(seconds + 10))
            return claim
        }
        let first = try await archived(.succeeded, at: 0)
        _ = try await archived(.testFailures, at: 100)

        #expect(try await store.asset(bot: "app", number: 1, name: "app.tar.gz") == asset)
        #expect(try await store.integration(bot: "app", number: 1)?.assets == [asset])
        #expect(try await store.asset(bot: "app", number: 1, name: "other.tar.gz") == nil)
        #expect(try await store.readAsset(bot: "app", number: 1, name: "app.tar.gz", from: 0, limit: bytes.count) == bytes)
        let boundary = 1 << 20
        #expect(
            try await store.readAsset(bot: "app", number: 2, name: "app.tar.gz", from: boundary - 10, limit: 20)
                == Array(bytes[(boundary - 10)..<(boundary + 10)]), "a range across a chunk's end")
        let elsewhere = try await test.another()
        #expect(
            try await elsewhere.readAsset(bot: "app", number: 1, name: "app.tar.gz", from: 0, limit: bytes.count) == bytes,
            "another host (or process) reads the same bytes")
        let location = store.assetLocation(bot: "app", number: 1, name: "app.tar.gz")
        #expect((location != nil) == (engine == .sqlite), "SQLite keeps the bytes as a file, PostgreSQL in the database")
        if let location { #expect(FileManager.default.contents(atPath: location) == Data(bytes)) }

        #expect(try await store.latestAsset(bot: "app", name: "app.tar.gz", results: [.succeeded, .warnings]) == 1)
        #expect(try await store.latestAsset(bot: "app", name: "app.tar.gz", results: [.succeeded, .testFailures]) == 2)
        #expect(try await store.latestAsset(bot: "app", name: "other.tar.gz", results: [.succeeded]) == nil)

        await #expect(throws: StoreError.self, "an ended integration's claim keeps nothing more") {
            try await store.storeAsset(Asset(name: "late.tar.gz", size: bytes.count, sha256: "00"), from: file, for: first)
        }
        #expect(try await store.asset(bot: "app", number: 1, name: "late.tar.gz") == nil)

        for seconds in [200.0, 300] { try await test.integrate("app", outcome: IntegrationOutcome(result: .succeeded), at: seconds) }
        #expect(try await store.applyRetention(keep: 2, bot: "app") == 2)
        #expect(try await store.asset(bot: "app", number: 1, name: "app.tar.gz") == nil)
        #expect(try await store.readAsset(bot: "app", number: 2, name: "app.tar.gz", from: 0, limit: 100) == [], "its bytes are gone too")
        if let location { #expect(!FileManager.default.fileExists(atPath: location)) }
        #expect(try await store.latestAsset(bot: "app", name: "app.tar.gz", results: [.succeeded, .testFailures]) == nil)
    }
}
