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
import KilnPresentation
import KilnStore

/// A part of another host's testing step, run on one of this host's idle executors
/// (`ShardHosts`): its commit checked out from this host's mirror, the other host's pack of the
/// built workspace unpacked over it (no second build), the part run by the built test binary,
/// its outcome recorded for the other host to merge. A part that cannot be set up here (its
/// commit or its pack out of reach) goes back for another host, or the integration's own.
extension IntegrationSequencer {
    /// The workspace slot of the `index`th shard this host runs at once: apart from the slots
    /// integrations and bisections use.
    static func shardSlot(_ index: Int) -> Int { 10_000 + index }

    /// How a part run here ended.
    enum ShardEnd: Sendable {
        /// Its outcome is recorded.
        case recorded
        /// It could not be set up or run here, and went back (this host should not claim again
        /// at once).
        case gaveBack
        /// It was no longer this host's (its integration's testing step ended, or another host
        /// took it, this one taken for gone): stopped, nothing recorded.
        case dropped
    }

    /// Runs `shard` of `bot` in workspace slot `slot`; returns once its outcome is recorded, it
    /// went back, or it is no longer this host's.
    func runShard(_ shard: ShardState, of bot: Bot, slot: Int) async -> ShardEnd {
        guard let shards, let warm else { return .gaveBack }
        let job = shard.job
        let began = clock.monotonic.now
        let log = IntegrationLog(path: layout.workspace(of: bot.name, slot: slot) + ".log", secrets: [])
        var workspace = Workspace(
            bot: bot, number: job.number, layout: layout, serverEnvironment: serverEnvironment, log: log, deadline: began + bot.timeout,
            hidden: bot.sandbox == .bubblewrap ? await secretFiles() : [], slot: slot)
        workspace.limits = bot.limits.over(limits)
        let note: String
        do throws(ShardSetUpError) {
            note = try await setUp(job, in: workspace, warm: warm, shards: shards)
        } catch {
            return await giveBack(job, shards: shards, log: log, because: "could not be set up here (\(error))")
        }
        let package = PackageBuild(workspace: workspace, layout: layout).shard(job.part)
        let output: TestOutput
        do {
            guard let tested = try await whileHeld(job, shards: shards, { try await package.test(only: job.tests, commit: job.snapshot.commit) })
            else {
                await log.close()
                return .dropped
            }
            output = tested
            // This host stopping: the part is not done, and goes back.
            if output.end == .canceled { throw CancellationError() }
        } catch {
            return await giveBack(job, shards: shards, log: log, because: "did not run here (\(error))")
        }
        await log.close()
        let run = ShardRun(
            index: job.part, host: shards.host, tests: job.tests.count, duration: clock.monotonic.since(began).seconds, workspace: .snapshot)
        let outcome = ShardOutcome(tests: output.tests, failure: output.end.succeeded ? nil : output.end.description, run: run, note: note)
        let store = shards.store
        await logger.bestEffort(
            "recording test shard \(job.part) of \(bot.name) #\(job.number)", loses: "its integration's host runs it again",
            { () async throws(StoreError) in
                try await store.completeShard(integrationID: job.integrationID, part: job.part, host: shards.host, outcome: outcome)
            })
        return .recorded
    }

    /// Runs `body` while part `job` is still this host's, looked at every second: nil, `body`
    /// canceled (its processes stopped), once its integration's host withdrew it (the testing
    /// step ended: canceled, timed out) or another host took it (this one taken for gone).
    private func whileHeld(_ job: ShardJob, shards: ShardHosts, _ body: @escaping @Sendable () async throws -> TestOutput) async throws
        -> TestOutput?
    {
        let (store, clock) = (shards.store, clock)
        return try await withThrowingTaskGroup(of: TestOutput?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                while !Task.isCancelled {
                    await clock.monotonic.sleep(for: .seconds(1))
                    // unread this time: looked at again in a second
                    guard let states = try? await store.shards(of: job.integrationID) else { continue }
                    let held = states.contains { $0.job.part == job.part && $0.claimedBy == shards.host && $0.outcome == nil }
                    if !held, !Task.isCancelled { return nil }
                }
                // canceled: the part ended first
                throw CancellationError()
            }
            // The first to end: the part's output, or nil when it is no longer this host's.
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Checks the job's commit out into `workspace` (fresh: no `.build`) and unpacks its pack
    /// there; what the integration's log says of where the workspace came from.
    private func setUp(_ job: ShardJob, in workspace: Workspace, warm: WarmWorkspaces, shards: ShardHosts) async throws(ShardSetUpError)
        -> String
    {
        let began = clock.monotonic.now
        let repository = workspace.bot.repository
        let commit = job.snapshot.commit
        do {
            // a `.build` from an earlier part is replaced by this one's pack
            try StaleFile.remove(workspace.directory + "/.build")
            if let ref = job.pullRef { _ = try await mirrors.update(repository, pullRef: ref) }
            try await mirrors.ensureMirror(of: repository, contains: commit)
            try await mirrors.checkout(commit, of: repository, into: workspace.directory)
        } catch {
            throw .checkout("\(error)")
        }
        guard let address = await shards.address(of: job.snapshot.host) else {
            throw .pack("\(job.snapshot.host) does not serve (gone, or not yet listening)")
        }
        let file = "\(layout.snapshots)/\(job.bot)/\(job.snapshot.cell).\(UUID().uuidString).fetched"
        // the download below fails with its own error when the folder is missing
        try? FileManager.default.createDirectory(atPath: "\(layout.snapshots)/\(job.bot)", withIntermediateDirectories: true)
        // a leftover download is only space, swept with cache.max-size
        defer { try? FileManager.default.removeItem(atPath: file) }
        do throws(SnapshotError) {
            try await warm.download(job.snapshot, from: address, to: file)
            try await warm.snapshots.unpack(job.snapshot, from: file, into: workspace, swiftVersion: await versions.version(of: nil))
        } catch {
            throw .pack("\(error)")
        }
        let seconds = clock.monotonic.since(began).seconds
        return
            "its workspace checked out and \(job.snapshot.host)'s pack of the build unpacked (\(ByteCount.text(job.snapshot.bytes))) in \(DurationText.prose(seconds))"
    }

    /// Gives `job` back for another host, or its integration's own, saying why.
    private func giveBack(_ job: ShardJob, shards: ShardHosts, log: IntegrationLog, because why: String) async -> ShardEnd {
        logger.warning(
            "a test shard of another host \(why): it goes back", metadata: ["bot": "\(job.bot)", "number": "\(job.number)", "part": "\(job.part)"])
        await log.close()
        let store = shards.store
        await logger.bestEffort(
            "giving back test shard \(job.part) of \(job.bot) #\(job.number)", loses: "it is claimed again once this host's lease runs out",
            { () async throws(StoreError) in try await store.releaseShard(integrationID: job.integrationID, part: job.part, host: shards.host) })
        return .gaveBack
    }
}

/// Why a part of another host's testing step could not be set up here.
enum ShardSetUpError: Error, CustomStringConvertible {
    case checkout(String)
    case pack(String)

    var description: String {
        switch self {
        case .checkout(let reason): "checking its commit out: \(reason)"
        case .pack(let reason): "fetching its pack: \(reason)"
        }
    }
}
