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

/// Tokens and the bots' visibility (`AccessRecords`).
struct AccessStore<Engine: StoreEngine>: AccessRecords, StoreRole {
    let engine: Engine
}

extension AccessStore {
    public func botVisibility() async throws(StoreError) -> [String: Bool] {
        try await readStatement("reading the bots' visibility") { db in
            Dictionary(try db.rows("SELECT name, private FROM bot").map { ($0["name"] as String, $0["private"] as Bool) }) { first, _ in first }
        }
    }

    public func addToken(_ token: AccessToken, hash: String) async throws(StoreError) {
        let added = try await write("adding the token '\(token.name)'", notify: .access) { db in
            try db.execute(
                "INSERT INTO access_token (name, role, bots, hash, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", token.name,
                token.role.rawValue, JSON.encode(token.bots), hash, token.createdAt)
        }
        if added == 0 { throw .query(what: "adding the token '\(token.name)'", reason: "a token of that name exists (revoke it first)") }
    }

    public func tokens() async throws(StoreError) -> [AccessToken] {
        try await tokenHashes().map(\.token)
    }

    public func tokenHashes() async throws(StoreError) -> [(hash: String, token: AccessToken)] {
        let rows = try await readStatement("reading the tokens") { db in try db.rows("SELECT * FROM access_token ORDER BY name") }
        return rows.map(Self.token(row:))
    }

    public func token(hash: String) async throws(StoreError) -> (hash: String, token: AccessToken)? {
        let rows = try await readStatement("looking a token up") { db in try db.rows("SELECT * FROM access_token WHERE hash = ?", hash) }
        return rows.first.map(Self.token(row:))
    }

    @discardableResult
    public func revokeToken(named name: String) async throws(StoreError) -> Bool {
        try await write("revoking the token '\(name)'", notify: .access) { db in
            try db.execute("DELETE FROM access_token WHERE name = ?", name) > 0
        }
    }

    public var accessEpoch: Int? {
        // The epoch first: a loss of the feed moves it before it says it no longer hears.
        guard let epoch = engine.hub.toldAccessEpoch else { return nil }
        return engine.hearsChanges ? epoch : nil
    }

    public func tokenUsed(named name: String, at now: Date) async throws(StoreError) {
        try await write("recording the use of the token '\(name)'", notify: nil) { db in
            try db.execute("UPDATE access_token SET last_used_at = ? WHERE name = ?", now, name)
        }
    }
}

extension AccessStore {
    static func token(row: SQLRow) -> (hash: String, token: AccessToken) {
        let token = AccessToken(
            name: row["name"], role: AccessRole(rawValue: row["role"]) ?? .viewer,
            bots: JSON.decode([String].self, from: row["bots"], default: []),
            createdAt: row["created_at"], lastUsedAt: row["last_used_at"])
        return (row["hash"], token)
    }
}
