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

/// The pack of a built workspace whose test shards other hosts run (`ShardJob`): served to them
/// as a snapshot is (`GET /hosts/snapshots/…`, under the cell `shards-<integration id>`), never
/// taken for the cell's snapshot, and removed when the testing step ends.
extension WorkspaceSnapshots {
    /// The cell a pack for the shards of integration `id` is served under.
    public static func shardCell(_ id: Int64) -> String { "shards-\(id)" }

    /// How long a pack for shards is kept when its integration's host did not remove it (it
    /// stopped mid-step): the next pack of the bot's removes it.
    static let shardPackLifetime: TimeInterval = 24 * 3600

    /// Packs `workspace`'s `.build`, just built for integration `integrationID`, for the shards
    /// other hosts run: at the integration's own priority, since the verdict waits for it.
    public func packForShards(
        _ workspace: Workspace, integrationID: Int64, commit: String, swiftVersion: String, now: Date
    ) async throws(SnapshotError) -> WorkspaceSnapshot {
        let bot = workspace.bot.name
        let (folder, cell) = ("\(layout.snapshots)/\(bot)", Self.shardCell(integrationID))
        // packing into it fails with its own error when the folder is missing
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        removeOldShardPacks(in: folder, now: now)
        let partial = "\(folder)/\(cell).\(UUID().uuidString).partial"
        // once renamed there is nothing to remove; a leftover is swept with the next old pack
        defer { try? FileManager.default.removeItem(atPath: partial) }
        try await Self.packBuild(of: workspace, into: partial, started: { _ in })
        let (bytes, sha256) = try Self.digest(of: partial)
        guard rename(partial, layout.snapshot(of: bot, cell: cell, sha256: sha256)) == 0 else {
            throw .failed("moving the pack into \(folder): \(String(cString: strerror(errno)))")
        }
        return WorkspaceSnapshot(
            bot: bot, cell: cell, host: host, number: workspace.number, commit: commit, swiftVersion: swiftVersion, seenAs: workspace.seenAs,
            bytes: bytes, sha256: sha256, createdAt: now)
    }

    /// Removes the packs for shards in `folder` that a stopped host left behind.
    private func removeOldShardPacks(in folder: String, now: Date) {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in files where name.hasPrefix("shards-") {
            let path = "\(folder)/\(name)"
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? now
            // what stays is only space, removed at the next look
            if now.timeIntervalSince(modified) > Self.shardPackLifetime { try? FileManager.default.removeItem(atPath: path) }
        }
    }
}
