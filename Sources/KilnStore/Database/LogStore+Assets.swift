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

/// Integration assets (archives): a row each in `asset` (name, size, SHA-256), and the bytes as a
/// file under the data directory (`assets/<bot>/<number>/<name>`, SQLite's) or as 1 MiB
/// `asset_chunk` rows (PostgreSQL's, where logs are kept too), so that any host serves any asset.
/// An asset is written only while its claim holds, and is visible once all its bytes are.
extension LogStore {
    /// Where SQLite keeps assets: beside the logs, in the data directory.
    public func assetLocation(bot: String, number: Int, name: String) -> String? {
        assetsDirectory.map { "\($0)/\(bot)/\(number)/\(name)" }
    }

    public func storeAsset(_ asset: Asset, from path: String, for claim: Claim) async throws(StoreError) {
        // A cell's archive is its integration's: the file goes where that one's are, and its
        // rows move to it when it completes.
        let what = "keeping \(asset.name) of \(claim.bot) #\(claim.shownNumber)"
        if let location = assetLocation(bot: claim.bot, number: claim.shownNumber, name: asset.name) {
            try await write(what, notify: nil) { db in try Self.checkClaim(db, claim) }  // no copy for a lost claim
            do {
                // the copy below replaces it, and reports its own failure
                try? FileManager.default.removeItem(atPath: location)
                try FileManager.default.createDirectory(atPath: (location as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: path, toPath: location)
            } catch {
                throw .query(what: what, reason: "\(error.localizedDescription) (is the data directory writable, with room for it?)")
            }
        } else {
            guard let handle = FileHandle(forReadingAtPath: path) else { throw .query(what: what, reason: "cannot read \(path)") }
            // closing a file that was only read loses nothing
            defer { try? handle.close() }
            var offset = 0
            while true {
                let piece: Data
                do {
                    piece = try handle.read(upToCount: Self.assetChunk) ?? Data()
                } catch {
                    throw .query(what: what, reason: "reading \(path): \(error)")
                }
                if piece.isEmpty { break }
                let (start, bytes) = (offset, [UInt8](piece))
                try await write(what, notify: nil) { db in
                    try Self.checkClaim(db, claim)
                    try db.execute(
                        """
                        INSERT INTO asset_chunk (integration_id, name, start_offset, data) VALUES (?, ?, ?, ?)
                        ON CONFLICT (integration_id, name, start_offset) DO UPDATE SET data = excluded.data
                        """, claim.id, asset.name, start, bytes)
                }
                offset += piece.count
            }
        }
        try await write(what) { db in
            try Self.checkClaim(db, claim)
            try db.execute("DELETE FROM asset WHERE integration_id = ? AND name = ?", claim.id, asset.name)
            try db.execute(
                "INSERT INTO asset (integration_id, name, size, sha256) VALUES (?, ?, ?, ?)", claim.id, asset.name, asset.size, asset.sha256)
        }
    }

    public func asset(bot: String, number: Int, name: String) async throws(StoreError) -> Asset? {
        try await read("reading asset \(name) of \(bot) #\(number)") { db in
            try db.row(
                "SELECT asset.* FROM asset JOIN integration ON integration.id = asset.integration_id WHERE bot = ? AND number = ? AND name = ?",
                bot, number, name
            ).map(Asset.init(row:))
        }
    }

    public func readAsset(bot: String, number: Int, name: String, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8] {
        let what = "asset \(name) of \(bot) #\(number)"
        if let location = assetLocation(bot: bot, number: number, name: name) {
            return try LogFiles.read(location, from: offset, limit: limit, what: what) ?? []
        }
        let (offset, limit) = (max(0, offset), max(0, limit))
        return try await read("reading \(what)") { db in
            let chunks = try db.rows(
                """
                SELECT start_offset, data FROM asset_chunk
                WHERE integration_id = (SELECT id FROM integration WHERE bot = ? AND number = ?) AND name = ?
                AND start_offset + length(data) > ? AND start_offset < ? ORDER BY start_offset
                """, bot, number, name, offset, offset + limit)
            return Self.contiguous(chunks, from: offset, limit: limit)
        }
    }

    public func latestAsset(bot: String, name: String, results: Set<IntegrationResult>) async throws(StoreError) -> Int? {
        guard !results.isEmpty else { return nil }
        return try await read("finding the latest \(name) of \(bot)") { db in
            try db.value(
                """
                SELECT max(number) FROM integration JOIN asset ON asset.integration_id = integration.id
                WHERE bot = ? AND name = ? AND step = 'completed' AND result IN \(sqlList(results))
                AND pull_number IS NULL AND bisection_id IS NULL AND NOT expired
                """, bot, name)
        }
    }
}

extension StoreRole {
    /// Removes the assets of expired integrations, rows and bytes, within the caller's transaction.
    static func deleteAssets(_ db: any SQLConnection, of ids: [Int64], bytesInDatabase: Bool) throws {
        let list = placeholders(ids.count)
        try db.execute("DELETE FROM asset WHERE integration_id IN (\(list))", ids)
        if bytesInDatabase { try db.execute("DELETE FROM asset_chunk WHERE integration_id IN (\(list))", ids) }
    }
}

extension Asset {
    init(row: SQLRow) {
        self.init(name: row["name"], size: row["size"], sha256: row["sha256"])
    }
}

extension LogStore {
    /// Bytes per `asset_chunk` row, and per write transaction.
    static var assetChunk: Int { 1 << 20 }
}
