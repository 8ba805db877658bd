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
import Synchronization
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

extension TokenMemoryTests {
    @Test(
        "SQLite: a token revoked by another process (kiln token revoke) is refused on the first request after the revocation returns, every time"
    )
    func revokedByAnotherProcess() async throws {
        let directory = try TemporaryDirectory("kiln-token-memory")
        let server = try SQLiteStore.open(dataDirectory: directory.path)
        // A server subscribes to changes (its page cache does), which starts the file's watch.
        let changes = server.changes()
        let listener = Task { for await _ in changes {} }
        defer { listener.cancel() }
        let command = try SQLiteStore.open(dataDirectory: directory.path)
        let memory = TokenMemory()
        // A loaded machine, as under `make test`: the watcher's thread waits for a core after the
        // revocation returns (without `ChangeSource.hasUntoldChanges`, most runs let one in).
        let load = Spinners(threads: 3)
        defer { load.stop() }
        for round in 0..<30 {
            let value = TokenSecret.make()
            let hash = TokenSecret.hash(value)
            try await command.addToken(AccessToken(name: "alice", role: .viewer, createdAt: Date()), hash: hash)
            #expect(try await memory.token(hash: hash, store: server)?.token.name == "alice", "round \(round): a new token works at once")
            try await Self.eventually("the memory to vouch for alice") { server.accessEpoch != nil }
            #expect(try await memory.token(hash: hash, store: server)?.token.name == "alice")
            try await command.revokeToken(named: "alice")
            #expect(try await memory.token(hash: hash, store: server) == nil, "round \(round): the revoked token let in from memory")
        }
    }
}

/// Threads that keep the cores busy until stopped.
final class Spinners: Sendable {
    private let stopped = Atomic<Bool>(false)

    init(threads: Int) {
        for _ in 0..<threads {
            Thread.detachNewThread { [self] in
                while !self.stopped.load(ordering: .relaxed) {}
            }
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }
}
