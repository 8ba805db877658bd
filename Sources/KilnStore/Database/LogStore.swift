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

/// Integration logs: files under the logs directory (`LogFiles`, SQLite's), or chunks at their
/// byte offsets in `log_chunk` (PostgreSQL's), so that every host serves every log, including one
/// being written elsewhere. A chunk is written only while its claim holds, and is news for
/// live-log followers on every host (`ChangeKind.log`).
/// Integrations' logs and kept assets (`LogsAndAssets`): files on SQLite, rows on PostgreSQL.
struct LogStore<Engine: StoreEngine>: LogsAndAssets, StoreRole {
    let engine: Engine
    /// Sends this host's integration logs, where they are kept in the database.
    let logShipper: LogShipper?
}

extension LogStore {
    public func logSink(for claim: Claim) -> (any LogSink)? {
        logShipper?.sink(for: claim)
    }

    public func readLog(bot: String, number: Int, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]? {
        guard engine.logsInDatabase else {
            return try LogFiles.read(logLocation(bot: bot, number: number), from: offset, limit: limit, what: "the log of \(bot) #\(number)")
        }
        let (offset, limit) = (max(0, offset), max(0, limit))
        return try await read("reading the log of \(bot) #\(number)") { db in
            let integration = "(SELECT id FROM integration WHERE bot = ? AND number = ?)"
            let chunks = try db.rows(
                """
                SELECT start_offset, data FROM log_chunk
                WHERE integration_id = \(integration) AND start_offset + length(data) > ? AND start_offset < ? ORDER BY start_offset
                """, bot, number, offset, offset + limit)
            if chunks.isEmpty {
                return try db.row("SELECT 1 FROM log_chunk WHERE integration_id = \(integration) LIMIT 1", bot, number) == nil ? nil : []
            }
            return Self.contiguous(chunks, from: offset, limit: limit)
        }
    }

    public func logSize(bot: String, number: Int) async throws(StoreError) -> Int? {
        guard engine.logsInDatabase else { return LogFiles.size(logLocation(bot: bot, number: number)) }
        return try await read("reading the size of the log of \(bot) #\(number)") { db in
            try db.value(
                "SELECT max(start_offset + length(data)) FROM log_chunk WHERE integration_id = (SELECT id FROM integration WHERE bot = ? AND number = ?)",
                bot, number)
        }
    }
}

extension StoreRole {
    /// Appends `note` at the end of an integration's log in the database, within the caller's
    /// transaction.
    static func appendNote(_ db: any SQLConnection, _ note: String, to id: Int64) throws {
        try db.execute(
            """
            INSERT INTO log_chunk (integration_id, start_offset, data)
            SELECT ?, coalesce(max(start_offset + length(data)), 0), ? FROM log_chunk WHERE integration_id = ?
            """, id, Array(LogFiles.note(note).utf8), id)
    }
}

extension LogStore {
    /// The bytes of `chunks` (`start_offset`, `data`, in order) from `offset`, up to `limit`,
    /// stopping at a gap (a chunk not written yet).
    static func contiguous(_ chunks: [SQLRow], from offset: Int, limit: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for chunk in chunks {
            let start: Int = chunk["start_offset"]
            let data: [UInt8] = chunk["data"]
            let from = max(0, offset - start)
            guard start + from == offset + bytes.count, from <= data.count else { break }
            bytes += data[from...]
        }
        return Array(bytes.prefix(limit))
    }

    /// Writes chunks at their offsets in one transaction, each only if its claim still holds. A
    /// chunk already there (a retry of a write whose answer was lost) is left as it is. The
    /// claims are checked in one statement that locks their rows in id order, skipping those an
    /// integration's own step holds (their chunks wait for the next batch, where waiting held
    /// every other integration's chunks behind them, 5 s in all in a drain of 432 on 24 hosts),
    /// and the chunks are written in another.
    static func appendChunks(_ engine: Engine, _ chunks: [LogShipper.Chunk]) async throws(StoreError) -> LogShipper.Sent {
        let what = chunks.count == 1 ? "writing the log of \(chunks[0].claim.bot) #\(chunks[0].claim.number)" : "writing \(chunks.count) logs"
        return try await engine.write(what, lane: .work, notify: .log, limit: operationLimit) { db in
            let claims = Dictionary(chunks.map { ($0.claim.id, $0.claim) }) { first, _ in first }
            let ids = claims.keys.sorted()
            let rows = try db.rows(
                "SELECT id, step, claim_token, reason FROM integration WHERE id IN (\(placeholders(ids.count))) ORDER BY id\(db.dialect.lockSkippingLocked())",
                ids)
            var sent = LogShipper.Sent()
            let skipped = ids.filter { id in !rows.contains { $0["id"] == id } }
            if !skipped.isEmpty {
                // Skipped: busy, or gone (then the claim is lost).
                sent.busy = Set(
                    try db.rows("SELECT id FROM integration WHERE id IN (\(placeholders(skipped.count)))", skipped).map { $0["id"] as Int64 })
            }
            sent.lost = Set(
                claims.values.filter { claim in
                    !sent.busy.contains(claim.id) && StoreRules.refusal(of: claim, row: rows.first { $0["id"] == claim.id }) != nil
                }.map(\.id))
            let kept = chunks.filter { !sent.lost.contains($0.claim.id) && !sent.busy.contains($0.claim.id) }
            guard !kept.isEmpty else { return sent }
            try db.execute(
                """
                INSERT INTO log_chunk (integration_id, start_offset, data) VALUES \(placeholders(rows: kept.count, of: 3))
                ON CONFLICT (integration_id, start_offset) DO NOTHING
                """, kept.flatMap { chunk -> [any SQLBindable] in [chunk.claim.id, chunk.offset, chunk.bytes] })
            return sent
        }
    }
}
