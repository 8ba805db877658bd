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
import KilnBuild
import KilnCore
import KilnMail
import KilnStore
import Logging
import Synchronization

/// A new workspace starts warm: from this host's snapshot of the same bot and cell, else from one
/// another live host holds (fetched over Kiln's HTTP with the hosts' shared secret, checked by
/// its size, SHA-256 and toolchain); and a successful integration of the branch leaves a
/// snapshot for the next new workspace (`WorkspaceSnapshots`). Only the branch's successful
/// builds make snapshots: never a pull request's (a fork's least of all), a bisection's or a
/// failed build's. A snapshot refused costs only its build's seed: that build runs cold and its
/// log says why.
/// The compiler's `swift --version` line, asked when needed (`ToolchainVersions`).
typealias SwiftVersion = @Sendable () async -> String?

struct WarmWorkspaces: Sendable {
    let snapshots: WorkspaceSnapshots
    let catalog: any WorkspaceCatalog
    let holds = WorkspaceHolds()
    /// The snapshots being packed, after their integrations' results.
    let packer = SnapshotPacker()
    /// The bots whose files are there, as the last load read them: a pack queued before its
    /// bot's file went is not kept, nor recorded.
    let bots = KnownBots()
    let download: HTTPDownload
    let logger: Logger
    /// The toolchain's modules compiled once, for a new sandboxed workspace that starts cold.
    let moduleCaches: ModuleCacheTemplates
    /// A snapshot is replaced after a successful integration once it is this old (or made with
    /// another toolchain): a snapshot a few commits behind seeds nearly as well, and packing after
    /// every integration would cost each one its pack (0.8 s of two cores for a 233 MB `.build`).
    static let refresh: TimeInterval = 3600

    init(
        snapshots: WorkspaceSnapshots, catalog: any WorkspaceCatalog, logger: Logger, moduleCaches: String? = nil,
        download: HTTPDownload = HTTPDownload()
    ) {
        self.snapshots = snapshots
        self.catalog = catalog
        self.logger = logger
        self.download = download
        self.moduleCaches = ModuleCacheTemplates(folder: moduleCaches ?? snapshots.layout.moduleCaches) { bot, failure in
            logger.warning(
                "the toolchain's modules could not be compiled ahead: new sandboxed workspaces compile them in their first build",
                metadata: ["bot": "\(bot)", "error": "\(failure)"])
        }
    }

    /// Gives `workspace`, just checked out, a `.build` when it has none: where it came from.
    /// `wiped`: the bot's `clean` schedule wiped it for this integration (it then stays cold).
    func start(_ workspace: Workspace, cell: String, swiftVersion version: SwiftVersion, wiped: Bool) async -> WorkspaceOrigin {
        let bot = workspace.bot
        if FileManager.default.fileExists(atPath: workspace.directory + "/.build") { return .warm }
        if wiped { return .cold(.wiped(clean: bot.clean.rawValue)) }
        if bot.cache == .none { return .cold(.cacheOff) }
        let began = MonotonicClock.system.now
        var refusals: [WorkspaceOrigin.Refusal] = []
        if let local = snapshots.snapshot(of: bot.name, cell: cell) {
            let swiftVersion = await version()
            do throws(SnapshotError) {
                let pack = snapshots.layout.snapshot(of: bot.name, cell: cell, sha256: local.sha256)
                try await snapshots.unpack(local, from: pack, into: workspace, swiftVersion: swiftVersion)
                return .seeded(from: local, here: true, seconds: MonotonicClock.system.since(began).seconds)
            } catch {
                refusals.append(WorkspaceOrigin.Refusal(host: nil, number: local.number, error: "\(error)"))
                if case .toolchain = error {} else { await drop(local) }
            }
        }
        let elsewhere =
            await logger.bestEffort(
                "reading which hosts hold a snapshot of \(bot.name)", loses: "a new workspace builds cold",
                { [catalog, host = snapshots.host] () async throws(StoreError) in
                    try await catalog.snapshots(bot: bot.name, cell: cell, elsewhereThan: host)
                }
            ) ?? []
        let swiftVersion = elsewhere.isEmpty ? nil : await version()
        for (remote, address) in elsewhere {
            guard remote.swiftVersion == swiftVersion else {
                refusals.append(WorkspaceOrigin.Refusal(host: remote.host, number: remote.number, toolchain: remote.swiftVersion))
                continue
            }
            do throws(SnapshotError) {
                try await fetch(remote, from: address, into: workspace, swiftVersion: swiftVersion)
                return .seeded(from: remote, here: false, seconds: MonotonicClock.system.since(began).seconds)
            } catch {
                refusals.append(WorkspaceOrigin.Refusal(host: remote.host, number: remote.number, error: "\(error)"))
            }
        }
        return .cold(refusals.isEmpty ? .noSnapshot : .refused(refusals))
    }

    /// Fetches `remote` from the host at `address` into this host's snapshots, checks it, and
    /// unpacks it into `workspace`; this host then offers it too.
    private func fetch(_ remote: WorkspaceSnapshot, from address: String, into workspace: Workspace, swiftVersion: String?)
        async throws(SnapshotError)
    {
        let directory = "\(snapshots.layout.snapshots)/\(remote.bot)"
        // the download below fails with its own error when the folder is missing
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let partial = "\(directory)/\(remote.cell).\(UUID().uuidString).fetched"
        // a leftover download is replaced by the next one and swept with cache.max-size
        defer { try? FileManager.default.removeItem(atPath: partial) }
        try await download(remote, from: address, to: partial)
        try await snapshots.unpack(remote, from: partial, into: workspace, swiftVersion: swiftVersion)
        var kept = remote
        kept.host = snapshots.host
        guard
            logger.bestEffort(
                "keeping a fetched snapshot of \(remote.bot)", loses: "this host fetches it again",
                { () throws(SnapshotError) in
                    try snapshots.install(kept, pack: partial)
                }) != nil
        else { return }
        await logger.bestEffort(
            "recording a fetched snapshot of \(remote.bot)", loses: "other hosts fetch it from its maker only",
            { [catalog] () async throws(StoreError) in try await catalog.recordSnapshot(kept) })
    }

    /// Downloads the pack of `snapshot` from the host serving it at `address` into `file`,
    /// showing the hosts' secret; the caller checks it (`WorkspaceSnapshots.unpack`).
    func download(_ snapshot: WorkspaceSnapshot, from address: String, to file: String) async throws(SnapshotError) {
        let secret: String
        do {
            secret = try await catalog.clusterSecret()
        } catch {
            throw .failed("reading the hosts' secret: \(error)")
        }
        let url = "\(address)/hosts/snapshots/\(snapshot.bot)/\(snapshot.cell)/\(snapshot.sha256)"
        let outcome = await download.get(url, headers: ["\(WorkspaceSnapshot.secretHeader): \(secret)"], to: file)
        if let error = outcome.error { throw .failed("fetching it from \(address): \(error)") }
    }

    /// After `integration` (a branch's, or a cell of one) was recorded, in `workspace`, which the
    /// caller holds (`holds`): starts packing it, beside what runs next, as the snapshot of its
    /// bot and cell when its build succeeded and the snapshot there is missing, stale (`refresh`)
    /// or of another toolchain, and returns; the workspace's hold ends when that is done.
    func keep(_ workspace: Workspace, after integration: Integration, cell: String, swiftVersion version: @escaping SwiftVersion, now: Date) async {
        let built: Set<IntegrationResult> = [.succeeded, .warnings, .analyzerWarnings, .testFailures]
        guard workspace.bot.cache == .warm, integration.pullRequest == nil, integration.bisectionID == nil, integration.cause != .bisect,
            let commit = integration.commit, let result = integration.result, built.contains(result),
            FileManager.default.fileExists(atPath: workspace.directory + "/.build")
        else {
            await holds.release(workspace.directory)
            return
        }
        let number = integration.shownNumber
        await packer.start(workspace.directory) { [self] began in
            // the compiler asked here too, after the result, as the rest of the pack
            if bots.has(workspace.bot.name), let swiftVersion = await version(),
                isStale(bot: workspace.bot.name, cell: cell, swiftVersion: swiftVersion, now: now)
            {
                await pack(workspace, cell: cell, number: number, commit: commit, swiftVersion: swiftVersion, now: now, began: began)
            }
            await holds.release(workspace.directory)
        }
    }

    /// Whether the snapshot of `bot` in `cell` is missing, older than `refresh` or of another
    /// toolchain than `swiftVersion`.
    private func isStale(bot: String, cell: String, swiftVersion: String, now: Date) -> Bool {
        guard let current = snapshots.snapshot(of: bot, cell: cell) else { return true }
        return current.swiftVersion != swiftVersion || now.timeIntervalSince(current.createdAt) >= Self.refresh
    }

    private func pack(
        _ workspace: Workspace, cell: String, number: Int, commit: String, swiftVersion: String, now: Date,
        began: @escaping @Sendable (pid_t) async -> Void
    ) async {
        do throws(SnapshotError) {
            let (made, dropped) = try await snapshots.pack(
                workspace, cell: cell, number: number, commit: commit, swiftVersion: swiftVersion, now: now, started: began)
            for old in dropped where old != made { await forget(old) }
            if dropped.contains(made) {
                logger.warning(
                    "a workspace snapshot is larger than cache.max-size: it is not kept",
                    metadata: ["bot": "\(made.bot)", "cell": "\(cell)", "bytes": "\(made.bytes)", "max": "\(snapshots.maxSize)"])
                return
            }
            // The bot's file may have gone while it packed: its snapshots go with it, also this one.
            guard bots.has(made.bot) else { return await removeSnapshots(of: made.bot) }
            await logger.bestEffort(
                "recording the snapshot of \(made.bot)", loses: "other hosts do not know of it until the next one",
                { [catalog] () async throws(StoreError) in try await catalog.recordSnapshot(made) })
            if !bots.has(made.bot) { await removeSnapshots(of: made.bot) }
        } catch {
            logger.warning("a workspace snapshot was not made", metadata: ["bot": "\(workspace.bot.name)", "cell": "\(cell)", "error": "\(error)"])
        }
    }

    /// Removes the snapshots of every bot not among `bots` (those whose files are gone).
    func removeSnapshots(exceptOf kept: Set<String>) async {
        bots.set(kept)
        for bot in snapshots.bots() where !kept.contains(bot) { await removeSnapshots(of: bot) }
    }

    /// Removes every snapshot of `bot`, a bot whose file is gone, from the disk and the store.
    private func removeSnapshots(of bot: String) async {
        snapshots.remove(bot: bot)
        await logger.bestEffort(
            "forgetting the snapshots of the removed bot \(bot)", loses: "other hosts may ask for them and be refused",
            { [catalog, host = snapshots.host] () async throws(StoreError) in try await catalog.forgetSnapshots(bot: bot, cell: nil, host: host) }
        )
    }

    /// Removes a snapshot this host holds, and what the store knows of it.
    private func drop(_ snapshot: WorkspaceSnapshot) async {
        snapshots.remove(snapshot)
        await forget(snapshot)
    }

    private func forget(_ snapshot: WorkspaceSnapshot) async {
        await logger.bestEffort(
            "forgetting a dropped snapshot of \(snapshot.bot)", loses: "another host may ask for it and be refused",
            { [catalog, host = snapshots.host] () async throws(StoreError) in
                try await catalog.forgetSnapshots(bot: snapshot.bot, cell: snapshot.cell, host: host)
            })
    }
}

/// The bots whose files were there at the last load; every bot until the first.
final class KnownBots: Sendable {
    private let names = Mutex<Set<String>?>(nil)

    func set(_ bots: Set<String>) { names.withLock { $0 = bots } }

    func has(_ bot: String) -> Bool { names.withLock { $0.map { $0.contains(bot) } ?? true } }
}
