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

/// `kiln run`: one integration in this process, claimed and run through the same code as a
/// server's executor (`IntegrationSequencer`), with a host's heartbeat (`HostKeeper.beating`).
extension KilnApplication {
    /// Why `kiln run` could not claim its integration.
    public enum ForegroundError: Error, Sendable, CustomStringConvertible {
        case store(StoreError)
        /// Another process runs an integration of the bot; `number` stays queued.
        case busy(bot: String, number: Int)

        public var description: String {
            switch self {
            case .store(let error): "\(error)"
            case .busy(let bot, let number): "\(bot) is integrating already (another kiln is running it); #\(number) is queued"
            }
        }
    }

    /// Records the bots as loaded, heartbeats once (so that no other host takes the claim for
    /// lost), queues `request` and claims it for this process.
    public func claimInForeground(_ request: QueueRequest, bots catalog: BotCatalog) async throws(ForegroundError) -> Claim {
        let config = settings.config
        do {
            try await store.syncBots(catalog.states, now: clock.now)
            try await store.heartbeat(.foreground(name: config.host, lease: config.hostLease))
            let queued = try await store.enqueue(request, now: clock.now)
            guard let claim = try await store.claim(queued.integration.id, owner: ProcessOwner.current(host: config.host), now: clock.now) else {
                throw ForegroundError.busy(bot: request.bot, number: queued.integration.number)
            }
            return claim
        } catch let error as ForegroundError {
            throw error
        } catch let error as StoreError {
            throw .store(error)
        } catch {
            throw .store(.query(what: "claiming the integration", reason: "\(error)"))
        }
    }

    /// Returns once the work an integration leaves to run beside the next (its workspace's
    /// snapshot, the host's module cache template) has ended: `kiln run`, after its answer,
    /// before it exits.
    public func settle() async {
        await sequencer.warm?.packer.settle()
        await sequencer.warm?.moduleCaches.settle()
    }

    /// Runs `claim` of `bot` to its end, heartbeating and running the store meanwhile; nil when
    /// another host took this one as gone and ended it (its result was not recorded).
    public func runInForeground(
        _ claim: Claim, of bot: Bot, progress: @escaping @Sendable (IntegrationSequencer.Progress) -> Void
    ) async -> Integration? {
        let (sequencer, store, config, monotonic) = (sequencer, store, settings.config, clock.monotonic)
        return await withTaskGroup(of: Integration??.self) { group in
            group.addTask { .some(await sequencer.run(claim, of: bot, progress: progress)) }
            group.addTask {
                await HostKeeper.beating(every: HostKeeper.interval(lease: config.hostLease), on: monotonic) {
                    await sequencer.logger.bestEffort(
                        "sending this host's heartbeat", loses: "if none arrives within the lease, other hosts take this one as gone",
                        { () async throws(StoreError) in _ = try await store.heartbeat(.foreground(name: config.host, lease: config.hostLease)) })
                }
                return nil
            }
            group.addTask {
                await store.run()
                return nil
            }
            var completed: Integration?
            while let part = await group.next() {
                guard let part else { continue }
                completed = part
                group.cancelAll()
            }
            return completed
        }
    }
}
