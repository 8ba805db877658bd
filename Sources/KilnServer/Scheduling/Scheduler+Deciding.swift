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
import KilnGit
import KilnPresentation
import KilnStore

/// What makes a bot integrate: its files changing, its branch moving, its schedule coming round.
extension Scheduler {
    /// Runs `body` now and then every `interval` until the task is canceled.
    nonisolated func every(_ interval: Duration, _ body: @Sendable (Scheduler) async -> Void) async {
        while !Task.isCancelled {
            await body(self)
            await clock.monotonic.sleep(for: interval)
        }
    }

    /// Queues what `cause` asks for `bot` (`QueueRequest`'s rule), and logs it.
    func queue(_ bot: Bot, cause: IntegrationCause, commit: String?, why: String) async {
        do {
            let outcome = try await store.enqueue(QueueRequest(bot, cause: cause, commit: commit), now: clock.now)
            logger.info(
                outcome.coalesced ? "coalesced" : "queued",
                metadata: ["bot": "\(bot.name)", "number": "\(outcome.integration.number)", "cause": "\(cause.rawValue)", "why": "\(why)"])
        } catch {
            logger.error("cannot queue", metadata: ["bot": "\(bot.name)", "error": "\(error)"])
        }
    }

    // MARK: Bots

    /// Loads the bots now (the server reports them before it starts serving); later changes are
    /// picked up by `reloadIfChanged`, which this load spares a second read of the same files.
    public func loadBots() async throws(ConfigError) -> BotCatalog {
        let (fingerprint, files) = fingerprintOfBotFiles()
        directoryFingerprint = fingerprint
        botsWatch?.follow(files)
        let catalog = try await registry.reload()
        await removeSnapshots(keeping: catalog)
        return catalog
    }

    /// Snapshots go with their bot: those of bots whose files are gone (not those broken).
    private func removeSnapshots(keeping catalog: BotCatalog) async {
        await sequencer.warm?.removeSnapshots(exceptOf: Set(catalog.bots.map(\.bot.name) + catalog.broken.map(\.name)))
    }

    /// Reloads the bots when their files changed: looked at when the watch saw something, and
    /// every `BotFilesWatch.fullLook` anyway (at every tick without a watch).
    func reloadIfChanged() async {
        if let botsWatch, !botsWatch.changed(), clock.monotonic.now < nextFullLook { return }
        nextFullLook = clock.monotonic.now + BotFilesWatch.fullLook
        let (fingerprint, files) = fingerprintOfBotFiles()
        guard fingerprint != directoryFingerprint else { return }
        directoryFingerprint = fingerprint
        botsWatch?.follow(files)
        do {
            let catalog = try await registry.reload()
            logger.info("bots loaded", metadata: ["bots": "\(catalog.bots.count)", "broken": "\(catalog.broken.count)"])
            await removeSnapshots(keeping: catalog)
        } catch {
            logger.error("cannot read the bots directory", metadata: ["error": "\(error)"])
        }
    }

    /// Names, sizes and modification times of the bot files, which changes when any file does;
    /// and the files.
    private func fingerprintOfBotFiles() -> (String, [String]) {
        let files = (try? BotCatalog.files(in: registry.directory)) ?? []
        let fingerprint = files.map { file -> String in
            var info = stat()
            _ = stat(file, &info)
            return "\(file) \(info.st_size) \(info.st_mtim.tv_sec) \(info.st_mtim.tv_nsec)"
        }.joined(separator: "\n")
        return (fingerprint, files)
    }

    // MARK: Once across hosts

    /// Whether this host runs polls and periodic schedules: of several hosts on one database, the
    /// holder of the `schedule` lease does, so that each fires once. The lease is renewed three
    /// times a lease; when its holder goes silent, another host takes it over once it runs out.
    func holdsScheduleLease() async -> Bool {
        let now = clock.monotonic.now
        if let leadership, now < leadership.until { return leadership.held }
        let held: Bool
        do {
            held = try await store.holdLease("schedule", holder: settings.host, for: settings.hostLease)
        } catch {
            logger.warning("cannot hold the schedule lease", metadata: ["error": "\(error)"])
            held = false
        }
        let wasHeld = leadership?.held ?? false
        leadership = (held, now + settings.hostLease / 3)
        if held && !wasHeld {
            // What another host did meanwhile is in the store: look there, not in memory.
            lastPeriodic = [:]
            logger.info("this host now runs polls and periodic schedules", metadata: ["host": "\(settings.host)"])
        } else if wasHeld && !held {
            logger.info("another host now runs polls and periodic schedules")
        }
        return held
    }

    // MARK: Polls

    /// Asks the remote head of every on-commit bot whose poll is due, and queues an integration
    /// (cause `poll`) of each head the store does not know yet — queued, running or integrated,
    /// by this host or any other, from a poll or a webhook.
    func pollRemotes() async {
        guard await holdsScheduleLease() else { return }
        let bots = await registry.catalog.bots.map(\.bot).filter { $0.schedule.onCommit && $0.schedule.poll > .zero }
        let now = clock.monotonic.now
        let due = bots.filter { bot in lastPoll[bot.name].map { now - $0 >= bot.schedule.poll } ?? true }
        guard !due.isEmpty else { return }
        for bot in due { lastPoll[bot.name] = now }
        let mirrors = sequencer.mirrors
        // Remote heads are asked in parallel, a few at a time.
        let heads = await withTaskGroup(of: (Bot, Result<String, GitError>).self) { group in
            var results: [(Bot, Result<String, GitError>)] = []
            var pending = due[...]
            for _ in 0..<min(8, pending.count) {
                let bot = pending.removeFirst()
                group.addTask { (bot, await Self.remoteHead(bot, mirrors: mirrors)) }
            }
            while let result = await group.next() {
                results.append(result)
                if let bot = pending.popFirst() { group.addTask { (bot, await Self.remoteHead(bot, mirrors: mirrors)) } }
            }
            return results
        }
        for (bot, result) in heads {
            switch result {
            case .failure(let error):
                logger.warning("cannot poll the remote", metadata: ["bot": "\(bot.name)", "error": "\(error)"])
            case .success(let head):
                let store = store
                guard
                    let known = await logger.bestEffort(
                        "reading the commit \(bot.name) last integrated", loses: "this poll of the bot is skipped, not taken for a new commit",
                        { () async throws(StoreError) in try await store.predecessor(.withCommit, bot: bot.name, before: nil) })
                else { continue }
                guard known?.commit != head else { continue }
                await queue(bot, cause: .poll, commit: head, why: "the branch moved to \(ShortHash.text(head))")
            }
        }
    }

    private static func remoteHead(_ bot: Bot, mirrors: Mirrors) async -> Result<String, GitError> {
        do {
            return .success(try await mirrors.remoteHead(bot.repository))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Schedules

    func queuePeriodic() async {
        guard await holdsScheduleLease() else { return }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = settings.timeZone
        let current = clock.now
        for bot in await registry.catalog.bots.map(\.bot) {
            guard let periodic = bot.schedule.periodic else { continue }
            if lastPeriodic[bot.name] == nil {
                // Since the last periodic integration the store knows of, else since this start.
                let store = store
                let integrations = await logger.bestEffort(
                    "reading the last periodic integration of \(bot.name)", loses: "its schedule counts from this start instead",
                    { () async throws(StoreError) in try await store.integrations(bot: bot.name, limit: 200, before: nil) })
                let last = integrations?.first { $0.cause == .periodic }?.queuedAt
                lastPeriodic[bot.name] = last ?? startedAt
            }
            guard let last = lastPeriodic[bot.name], let next = periodic.next(after: last, in: calendar), next <= current else { continue }
            // However many periods were missed, one integration, and the next one after now.
            lastPeriodic[bot.name] = current
            await queue(bot, cause: .periodic, commit: nil, why: "\(periodic.text) came round")
        }
    }
}
