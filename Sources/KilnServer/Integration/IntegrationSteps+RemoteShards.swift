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

/// Test shards on other hosts (`ShardHosts`): the parts this host has no idle executor for are
/// offered with a pack of the built workspace while the others run here; when those are done,
/// this executor runs any part no live host holds (never claimed, or its host went silent), and
/// waits for the rest. One set of results, each test once.
extension IntegrationSteps {
    /// How many of `beside` parts (those no executor of this host is idle for) other hosts take:
    /// as many as they have idle executors, where the workspace is seen at one path on every
    /// host (sandboxed) and its code may go there (not a fork's), and not under fail-fast (a
    /// failure here does not stop a part elsewhere) nor for a matrix cell (whose toolchain
    /// another host may not offer).
    func partsElsewhere(_ beside: Int, watch: TestWatch) async -> Int {
        guard beside > 0, let shards = context.shards, warm != nil, cell == nil, workspace.confined, !workspace.fromFork, !watch.failFast else {
            return 0
        }
        return min(beside, await shards.idleElsewhere())
    }

    /// Runs `here` at once on this host and offers `elsewhere` (the parts after them) to the
    /// other hosts; the results of all, as one run.
    func testHereAndElsewhere(
        _ package: PackageBuild, here: [[TestCase]], elsewhere: [[TestCase]], commit: String?, watch: TestWatch
    ) async throws(Stop) -> TestOutput {
        let (host, clock, total) = (integration.host ?? "", context.clock.monotonic, here.count + elsewhere.count)
        // Packed and offered while the parts here run: the pack only reads `.build`.
        async let offered = offer(elsewhere, first: here.count + 1, of: total, commit: commit)
        let local: TestOutput
        do throws(Stop) {
            local = try await attempt { [commit] in try await package.test(shards: here, commit: commit, watch: watch, host: host, clock: clock) }
        } catch {
            await withdraw(await offered)
            throw error
        }
        guard let pack = await offered else {
            // Not offered (the pack or the store failed, and the log says so): they run here now.
            let rest = try await attempt { [commit] in
                try await package.test(shards: elsewhere, first: here.count + 1, commit: commit, watch: watch, host: host, clock: clock)
            }
            var merged = local
            merged.add(rest.tests, sanitizerReports: rest.sanitizerReports, end: rest.end, runs: rest.shards)
            return merged
        }
        // Withdrawn once the parts are in, or the step stopped while waiting for them.
        let collected: Result<[ShardOutcome], Stop>
        do throws(Stop) {
            collected = .success(try await collect(elsewhere.count, of: total, package, commit: commit, watch: watch))
        } catch {
            collected = .failure(error)
        }
        await withdraw(pack)
        var merged = local
        for outcome in try collected.get() {
            let note = outcome.note.map { ", \($0)" } ?? ""
            await log.header(
                "shard \(outcome.run.index) of \(total) ran on \(outcome.run.host): \(CountText.of(outcome.run.tests, "test")) in \(DurationText.prose(outcome.run.duration))\(note)"
            )
            merged.add(outcome.tests, end: outcome.failure == nil ? .exited(0) : .exited(1), runs: [outcome.run])
        }
        return merged
    }

    /// Packs the built workspace and offers `parts` (numbered from `first`) to the other hosts;
    /// the pack, or nil when they were not offered.
    private func offer(_ parts: [[TestCase]], first: Int, of total: Int, commit: String?) async -> WorkspaceSnapshot? {
        guard let shards = context.shards, let warm, let commit else { return nil }
        guard let swiftVersion = await warm.swiftVersion() else {
            await log.note("test.shards: the compiler's version is not known, which a pack needs: every shard runs here")
            return nil
        }
        let began = context.clock.monotonic.now
        let pack: WorkspaceSnapshot
        do throws(SnapshotError) {
            pack = try await warm.workspaces.snapshots.packForShards(
                workspace, integrationID: claim.id, commit: commit, swiftVersion: swiftVersion, now: context.clock.now)
        } catch {
            await log.note("test.shards: the built workspace was not packed for other hosts (\(error)): every shard runs here")
            return nil
        }
        let jobs = parts.enumerated().map { offset, tests in
            ShardJob(
                integrationID: claim.id, bot: bot.name, number: integration.shownNumber, part: first + offset, parts: total, tests: tests,
                snapshot: pack, pullRef: integration.pullRequest?.ref)
        }
        do {
            try await shards.store.offerShards(jobs, now: context.clock.now)
        } catch {
            warm.workspaces.snapshots.remove(pack)
            await log.note("test.shards: the shards were not offered to other hosts (\(error)): every shard runs here")
            return nil
        }
        let seconds = context.clock.monotonic.since(began).seconds
        let which = parts.count == 1 ? "shard \(first)" : "shards \(first)–\(first + parts.count - 1)"
        await log.header(
            "\(which) of \(total) offered to other hosts, with the built workspace packed (\(ByteCount.text(pack.bytes)) in \(DurationText.prose(seconds)))"
        )
        return pack
    }

    /// Waits for the `count` offered parts' outcomes, in order; meanwhile this executor, its own
    /// parts done, runs any part no live host holds.
    private func collect(_ count: Int, of total: Int, _ package: PackageBuild, commit: String?, watch: TestWatch) async throws(Stop)
        -> [ShardOutcome]
    {
        guard let shards = context.shards else { return [] }
        let (clock, logger, name) = (context.clock, context.logger, bot.name)
        let store = shards.store
        // The parts whose tests the watch has counted: a failure elsewhere turns the commit
        // status to failure as soon as its part ends.
        var told = Set<Int>()
        while true {
            if Task.isCancelled { throw stop(.canceled, .canceled) }
            if clock.monotonic.now >= workspace.deadline { throw timedOut() }
            let states = await logger.bestEffort(
                "reading the test shards of \(name) #\(integration.shownNumber)", loses: "it looks again in a moment",
                { [id = claim.id] () async throws(StoreError) in try await store.shards(of: id) })
            for state in states ?? [] where !told.contains(state.job.part) && state.outcome?.run.host != shards.host {
                guard let outcome = state.outcome else { continue }
                told.insert(state.job.part)
                watch.heardElsewhere(ended: outcome.tests.count, failed: outcome.tests.filter(\.counts).count)
            }
            if let states, states.count == count, case let outcomes = states.compactMap(\.outcome), outcomes.count == count { return outcomes }
            let mine = await logger.bestEffort(
                "claiming a test shard of \(name) #\(integration.shownNumber)", loses: "it looks again in a moment",
                { [id = claim.id] () async throws(StoreError) in try await store.claimShard(host: shards.host, bots: [name], of: id, now: clock.now) }
            )
            if case let mine?? = mine {
                try await runHere(mine, of: total, package, commit: commit, watch: watch, shards: shards)
                continue
            }
            await clock.monotonic.sleep(for: .milliseconds(100))
        }
    }

    /// Runs an offered part that no live host holds on this executor, and records its outcome.
    private func runHere(_ shard: ShardState, of total: Int, _ package: PackageBuild, commit: String?, watch: TestWatch, shards: ShardHosts)
        async throws(Stop)
    {
        let part = shard.job.part
        let why = shard.attempts > 1 ? "the host that took it went silent" : "no other host took it"
        await log.header("shard \(part) of \(total) runs here: \(why)")
        let (host, clock) = (integration.host ?? "", context.clock.monotonic)
        let output = try await attempt { [commit] in
            try await package.test(shards: [shard.job.tests], first: part, commit: commit, watch: watch, host: host, clock: clock)
        }
        guard let run = output.shards.first else { return }
        let outcome = ShardOutcome(tests: output.tests, failure: output.end.succeeded ? nil : output.end.description, run: run)
        let store = shards.store
        await context.logger.bestEffort(
            "recording test shard \(part) of \(bot.name) #\(integration.shownNumber)", loses: "it runs again",
            { [id = claim.id] () async throws(StoreError) in
                try await store.completeShard(integrationID: id, part: part, host: shards.host, outcome: outcome)
            })
    }

    /// Withdraws the offered parts and removes their pack: the testing step has ended.
    private func withdraw(_ pack: WorkspaceSnapshot?) async {
        guard let pack, let shards = context.shards else { return }
        warm?.workspaces.snapshots.remove(pack)
        let store = shards.store
        await context.logger.bestEffort(
            "withdrawing the test shards of \(bot.name) #\(integration.shownNumber)", loses: "the next offer of any host removes them",
            { [id = claim.id] () async throws(StoreError) in try await store.withdrawShards(of: id) })
    }
}
