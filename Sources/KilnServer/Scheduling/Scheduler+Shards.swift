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

/// Other hosts' test shards on this host's idle executors (`ShardHosts`): claimed when nothing
/// queued here needs the executor, each in a workspace slot of its own.
extension Scheduler {
    /// How long this host claims no shard after one it could not set up: long enough for the
    /// part's own host (which looks every 100 ms) to take it back.
    static let shardPause = Duration.seconds(10)

    /// Executors taken: running an integration, promised to one, lent to its shards, or running
    /// another host's shard.
    var occupied: Int { running.count + promised + lent + shardSlots.count }

    /// Claims a part of another host's testing step for one of the bots loaded here, with the
    /// workspace slot it runs in; nil when there is none, or this host takes none (SQLite).
    func claimShard() async -> (ShardState, Bot, Int)? {
        guard let shards = sequencer.shards else { return nil }
        if let paused = shardsPausedUntil, clock.monotonic.now < paused { return nil }
        let bots = await registry.catalog.bots.map(\.bot)
        guard !bots.isEmpty, let index = (0..<settings.executors).first(where: { !shardSlots.contains(IntegrationSequencer.shardSlot($0)) })
        else { return nil }
        let store = shards.store
        let (host, now, names) = (settings.host, clock.now, Set(bots.map(\.name)))
        guard
            case let shard?? = await logger.bestEffort(
                "claiming a test shard of another host", loses: "it is claimed at the next look",
                { () async throws(StoreError) in try await store.claimShard(host: host, bots: names, of: nil, now: now) }),
            let bot = bots.first(where: { $0.name == shard.job.bot })
        else { return nil }
        let slot = IntegrationSequencer.shardSlot(index)
        shardSlots.insert(slot)
        logger.info(
            "running a test shard of another host",
            metadata: ["bot": "\(bot.name)", "number": "\(shard.job.number)", "part": "\(shard.job.part)", "of": "\(shard.job.snapshot.host)"])
        return (shard, bot, slot)
    }

    /// The shard in `slot` has ended as `end` says.
    func shardEnded(slot: Int, _ end: IntegrationSequencer.ShardEnd) {
        shardSlots.remove(slot)
        if case .gaveBack = end { shardsPausedUntil = clock.monotonic.now + Self.shardPause }
    }
}
