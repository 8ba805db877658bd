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

@Suite("Store: private bots, access tokens, canceling from the web")
struct AccessStoreTests {
    @Test("A token is kept as its hash alone, listed, stamped when used and revoked; a taken name is refused", arguments: Engine.allCases)
    func tokens(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let alice = AccessToken(name: "alice", role: .member, bots: ["app", "lib"], createdAt: test.at(1))
        try await store.addToken(alice, hash: "hash-of-alice")
        try await store.addToken(AccessToken(name: "board", role: .viewer, createdAt: test.at(2)), hash: "hash-of-board")
        await #expect(throws: StoreError.self) {
            try await store.addToken(AccessToken(name: "alice", role: .admin, createdAt: test.at(3)), hash: "other")
        }
        #expect(try await store.tokens().map(\.name) == ["alice", "board"])
        #expect(try await store.tokenHashes().first?.hash == "hash-of-alice")
        #expect(try await store.tokens().first == alice, "role, bots and dates as given; never used yet")
        try await store.tokenUsed(named: "alice", at: test.at(9))
        #expect(try await store.tokens().first?.lastUsedAt == test.at(9))
        #expect(try await store.revokeToken(named: "alice"))
        #expect(try await !store.revokeToken(named: "alice"))
        #expect(try await store.tokenHashes().map(\.token.name) == ["board"])
    }

    @Test("Private bots as their files say; a broken file keeps its bot private, or makes it so when it mentions private", arguments: Engine.allCases)
    func privateBots(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let bots = [
            BotState(name: "open", file: "Bots/open.yml", repository: "r", branch: "main"),
            BotState(name: "hush", file: "Bots/hush.yml", repository: "r", branch: "main", isPrivate: true),
        ]
        try await store.syncBots(bots, now: test.at(1))
        #expect(try await store.botVisibility() == ["hush": true, "open": false])
        #expect(try await store.botOverviews().map(\.state.isPrivate) == [true, false])
        // hush's file breaks: its visibility cannot be read, and it stays private.
        let broken = BotState(name: "hush", file: "Bots/hush.yml", repository: "", branch: "", problems: ["Bots/hush.yml:1:1: error: …"])
        try await store.syncBots([bots[0], broken], now: test.at(2))
        #expect(try await store.botVisibility() == ["hush": true, "open": false])
        // Fixed, and public now.
        try await store.syncBots([bots[0], BotState(name: "hush", file: "Bots/hush.yml", repository: "r", branch: "main")], now: test.at(3))
        #expect(try await store.botVisibility() == ["hush": false, "open": false])
    }

    @Test("Canceling: a queued integration ends canceled at once, a running one is asked to stop, an ended one is left", arguments: Engine.allCases)
    func cancel(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "c1", branch: "main"), now: test.at(1))
        let running = try #require(try await store.claimNext(owner: "h 1 1", now: test.at(2)))
        _ = try await store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "c2", branch: "main", cancelSuperseded: false), now: test.at(3))

        let queued = try #require(try await store.cancel(bot: "app", number: 2, reason: .canceledFromWeb(token: nil), now: test.at(4)))
        #expect(queued.step == .completed && queued.result == .canceled && queued.reason == .canceledFromWeb(token: nil))
        let asked = try #require(try await store.cancel(bot: "app", number: 1, reason: .canceledFromWeb(token: nil), now: test.at(5)))
        #expect(asked.step != .completed, "a running integration is only asked to stop")
        #expect(try await store.stopRequests(for: [running]).map(\.id) == [running.id])
        #expect(
            try await store.cancel(bot: "app", number: 2, reason: .canceledFromWeb(token: "again"), now: test.at(6)) == nil,
            "ended: nothing to cancel")
        #expect(try await store.cancel(bot: "app", number: 9, reason: .canceledFromWeb(token: nil), now: test.at(6)) == nil)
    }
}
