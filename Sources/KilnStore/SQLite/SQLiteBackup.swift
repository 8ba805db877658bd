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
import GRDB
import KilnCore

extension DatabaseStore where Engine == SQLiteEngine {
    /// Copies the store into a new SQLite file at `path` with SQLite's online backup API, inside
    /// one read transaction: the copy is the store as it was at one moment, however many writers
    /// carry on meanwhile (WAL lets them). Then checks the copy (`PRAGMA integrity_check`) and
    /// says what it found ("ok"). `path` must not exist.
    public func backup(to path: String) async throws(StoreError) -> String {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(path: path, reason: "it exists: a backup is written to a new file")
        }
        let pool = engine.pool
        let result: Result<String, any Error> = await withCheckedContinuation { continuation in
            pool.asyncRead { database in
                continuation.resume(
                    returning: Result {
                        let source = try database.get()
                        let copy = try DatabaseQueue(path: path)
                        try copy.writeWithoutTransaction { try source.backup(to: $0) }
                        let check = try copy.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
                        try copy.close()
                        return check.joined(separator: "\n")
                    })
            }
        }
        do {
            return try result.get()
        } catch {
            // the backup's own error is what is thrown; a partial copy left behind is named in it
            try? FileManager.default.removeItem(atPath: path)
            throw .query(what: "backing the store up to \(path)", reason: "\(error)")
        }
    }

    /// How many integrations the store holds.
    public func integrationCount() async throws(StoreError) -> Int {
        try await read("counting the integrations") { try $0.value("SELECT count(*) FROM integration") ?? 0 }
    }
}
