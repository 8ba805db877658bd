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

@testable import KilnWeb

@Suite("Tokens from memory, vouched for by the change feed")
struct TokenMemoryTests {
    /// A PostgreSQL store that hears the others' changes, as a server's does, until the test ends.
    static func host(_ url: String) async throws -> (store: PostgresStore, feed: Task<Void, Never>) {
        let store = try await PostgresStore.open(DatabaseSettings(url: url), connections: 4, logsDirectory: nil)
        let feed = Task { await store.run() }
        try await eventually("the host to hear the database") { store.accessEpoch != nil }
        return (store, feed)
    }

    static func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("timed out waiting for \(what)")
    }

    @Test(
        "Two hosts on PostgreSQL: a token revoked through one is refused by the other's memory once its LISTEN hears it; the database away, the memory is never trusted"
    )
    func revokedAndCutOff() async throws {
        let url = try await PostgresServer.shared.database()
        let (one, oneFeed) = try await Self.host(url)
        let (two, twoFeed) = try await Self.host(url)
        defer {
            oneFeed.cancel()
            twoFeed.cancel()
            one.close()
            two.close()
        }
        let value = TokenSecret.make()
        let hash = TokenSecret.hash(value)
        try await one.addToken(AccessToken(name: "alice", role: .viewer, createdAt: Date()), hash: hash)
        let memory = TokenMemory()
        try await Self.eventually("the new token to be known on the other host") {
            try await memory.token(hash: hash, store: two)?.token.name == "alice"
        }
        let epoch = two.accessEpoch
        #expect(try await memory.token(hash: hash, store: two)?.token.name == "alice")
        #expect(two.accessEpoch == epoch, "an unchanged store keeps the memory")

        try await one.revokeToken(named: "alice")
        try await Self.eventually("the revocation to be heard") { two.accessEpoch != epoch }
        #expect(try await memory.token(hash: hash, store: two) == nil, "refused as soon as the other host heard it")

        // The database away: the host knows it cannot hear, and reads (and fails) rather than answer
        // from memory.
        let other = TokenSecret.make()
        try await one.addToken(AccessToken(name: "bob", role: .viewer, createdAt: Date()), hash: TokenSecret.hash(other))
        try await Self.eventually("bob to be known") { try await memory.token(hash: TokenSecret.hash(other), store: two) != nil }
        let name = try #require(url.split(separator: "/").last?.split(separator: "?").first.map(String.init))
        try await PostgresServer.shared.psql("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
        try await PostgresServer.shared.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
        try await Self.eventually("the host to know it cannot hear") { two.accessEpoch == nil }
        await #expect(throws: StoreError.self) { try await memory.token(hash: TokenSecret.hash(other), store: two) }
        try await PostgresServer.shared.psql("ALTER DATABASE \(name) ALLOW_CONNECTIONS true")
    }
}
