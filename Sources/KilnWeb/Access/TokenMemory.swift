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
import Synchronization

/// The tokens, by the hash of their value, as the store last said: a request with a token is
/// answered from memory, at the anonymous speed, while the store's change feed vouches that no
/// token was made or revoked since (`AccessRecords.accessEpoch`, which moves when the change is
/// heard: SQLite's watch on its file, PostgreSQL's `LISTEN` on every host, a moment after the
/// commit). When it has moved, the tokens are read again, once; a token memory does not know is
/// looked up in the store (made on another host a moment ago, its notice not here yet); when the
/// feed is down or silent for a second (a database connection lost), every request reads the
/// store, and fails with it: a revoked token is let in from memory only until its notice
/// arrives, a second at most. On SQLite not even that: while the file's watch holds a change it
/// has not told, there is no epoch (`ChangeSource.hasUntoldChanges`), so a token revoked by a
/// command that has returned is refused on the next request.
final class TokenMemory: Sendable {
    private struct Snapshot {
        var epoch: Int
        var tokens: [String: (hash: String, token: AccessToken)]
    }

    private let snapshot = Mutex<Snapshot?>(nil)

    /// The token whose value hashes to `hash`, with its stored hash.
    func token(hash: String, store: any AccessRecords) async throws -> (hash: String, token: AccessToken)? {
        guard let tokens = try await tokens(store) else {
            // Nobody vouches for a memory: the store alone answers, as before there was one.
            return try await store.token(hash: hash)
        }
        if let known = tokens[hash] { return known }
        // Unknown here: perhaps made a moment ago on another host, its notice still on the way
        // (PostgreSQL delivers it after the commit): the store answers, so a new token works at once.
        return try await store.token(hash: hash)
    }

    /// Whether any token exists: whether a page offers "Sign in".
    func anyToken(store: any AccessRecords) async throws -> Bool {
        guard let tokens = try await tokens(store) else { return try await !store.tokenHashes().isEmpty }
        return !tokens.isEmpty
    }

    /// The tokens by hash, from memory while the change feed vouches for it, else read again
    /// into it; nil when the feed is down and nothing may be remembered.
    private func tokens(_ store: any AccessRecords) async throws -> [String: (hash: String, token: AccessToken)]? {
        guard let epoch = store.accessEpoch else { return nil }
        if let known = snapshot.withLock({ $0?.epoch == epoch ? $0 : nil }) { return known.tokens }
        // Read after the epoch: a change during the read moves it, and the next request reads again.
        let rows = try await store.tokenHashes()
        let tokens = Dictionary(rows.map { ($0.hash, $0) }) { first, _ in first }
        snapshot.withLock { $0 = Snapshot(epoch: epoch, tokens: tokens) }
        return tokens
    }
}
