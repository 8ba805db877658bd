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
import KilnGit
import KilnPresentation
import KilnStore
import Logging

/// Takes one claimed integration through its steps — checkout, before-triggers, building,
/// testing, processing, after-triggers — recording each in the store, and completes it.
///
/// A build that fails is a result, never a thrown error: every way an integration can end —
/// including an infrastructure fault, a timeout or a cancel (the task being canceled) — ends
/// with it completed in the store with a result and, where useful, a reason in its log.
public struct IntegrationSequencer: Sendable {
    public let store: any IntegrationQueue & IntegrationRecords & LogsAndAssets
    public let mirrors: Mirrors
    public let layout: DataDirectory
    /// The server's environment: where secrets and PATH come from. Nothing else of it reaches builds.
    public let serverEnvironment: [String: String]
    /// What a fork's code must not read (see `Workspace.hidden`), asked when one starts.
    let secretFiles: @Sendable () async -> [String]
    /// Whether its integrations start bisections: a server's do, since its executors run the
    /// bisect integrations; `kiln run`'s do not, since nothing would.
    let bisects: Bool
    /// This host's executors: how many of a bisection's integrations may run here at once.
    let executors: Int
    public let logger: Logger
    /// The time of day of steps, completions and quarantines.
    public let clock: WallClock
    /// The toolchains this host offers to matrix cells besides `default`: name → the folder
    /// that holds its `swift` (`toolchains:` in kiln.yml).
    public let toolchains: [String: String]
    /// Each toolchain's `swift --version`, read once per toolchain and binary.
    let versions: ToolchainVersions
    /// The mirrors of the packages' dependencies, shared by every bot of the host.
    let dependencies: DependencyMirrors
    /// New workspaces from snapshots, and snapshots from successful integrations; nil: every
    /// new workspace builds from nothing.
    let warm: WarmWorkspaces?
    /// kiln.yml's `limits:`, over which a bot's own apply, and `fork-limits:`, which a fork's
    /// pull request never goes above.
    let limits: ResourceLimits
    let forkLimits: ResourceLimits
    /// The other hosts of the database, which run test shards (and whose shards this host runs);
    /// nil on SQLite and for `kiln run`.
    let shards: ShardHosts?

    public init(
        store: any IntegrationQueue & IntegrationRecords & LogsAndAssets, mirrors: Mirrors, layout: DataDirectory,
        serverEnvironment: [String: String],
        secretFiles: @escaping @Sendable () async -> [String], bisects: Bool = true, executors: Int = 1, logger: Logger,
        clock: WallClock = .system, toolchains: [String: String] = [:], snapshots: WorkspaceSnapshots? = nil,
        catalog: (any WorkspaceCatalog)? = nil, limits: ResourceLimits = .serverDefaults, forkLimits: ResourceLimits = .forkDefaults,
        shards: (any ShardQueue & HostRegistry)? = nil
    ) {
        self.shards = shards.flatMap { store in snapshots.map { ShardHosts(store: store, host: $0.host, logger: logger) } }
        self.limits = limits
        self.forkLimits = forkLimits
        // KILN_MODULE_CACHES: one folder of module cache templates for several data directories
        let moduleCaches = serverEnvironment[ModuleCacheTemplates.folderVariable]
        warm = snapshots.flatMap { snapshots in
            catalog.map { WarmWorkspaces(snapshots: snapshots, catalog: $0, logger: logger, moduleCaches: moduleCaches) }
        }
        self.clock = clock
        self.toolchains = toolchains
        versions = ToolchainVersions(file: layout.toolchainVersions)
        dependencies = DependencyMirrors(directory: layout.dependencyMirrors, sshKeyFile: mirrors.sshKeyFile)
        self.bisects = bisects
        self.executors = executors
        self.store = store
        self.mirrors = mirrors
        self.layout = layout
        self.serverEnvironment = serverEnvironment
        self.secretFiles = secretFiles
        self.logger = logger
    }

    /// What `kiln run` and the logs hear as the integration goes.
    public enum Progress: Sendable {
        case step(IntegrationStep)
        case stepEnded(IntegrationStep, seconds: Double)
    }

    /// The names of the toolchains this host offers: `default` and its `toolchains:`.
    public var offeredToolchains: [String] {
        [Matrix.defaultToolchain] + toolchains.keys.sorted()
    }

    /// What the steps of its integrations use.
    var context: IntegrationContext {
        IntegrationContext(
            store: store, clock: clock, mirrors: mirrors, dependencies: dependencies, layout: layout, logger: logger,
            offeredToolchains: offeredToolchains, shards: shards)
    }

    /// Runs the claimed integration of `bot` and returns it completed; nil when the claim was
    /// lost on the way (another host took this one as gone and ended it): then nothing of this
    /// run is recorded beyond what was written while the claim held.
    ///
    /// A bot with a `matrix` runs its cells (`runMatrix`); a claimed cell runs as the bot in
    /// that cell's environment.
    /// `spare`: the executors its test shards may borrow; by default every other executor of
    /// the host (`kiln run`: nothing else runs in its process).
    public func run(_ claim: Claim, of bot: Bot, progress: @escaping @Sendable (Progress) -> Void = { _ in }) async -> Integration? {
        await run(claim, of: bot, spare: IdleExecutors(executors - 1), progress: progress)
    }

    func run(
        _ claim: Claim, of bot: Bot, spare: any SpareExecutors, progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async -> Integration? {
        if let cell = claim.integration.cell {
            guard bot.matrix?.cells.contains(cell) == true else {
                return await record(
                    claim, outcome: IntegrationOutcome(result: .canceled, reason: .cellRemoved(cell: cell.name)))
            }
            return await run(claim, of: bot.running(in: cell), cell: cell, spare: spare, progress: progress)
        }
        if let matrix = bot.matrix { return await runMatrix(claim, of: bot, matrix: matrix, spare: spare, progress: progress) }
        return await run(claim, of: bot, cell: nil, spare: spare, progress: progress)
    }

    /// The log of the claimed integration or cell, and its workspace.
    func workspace(for claim: Claim, of bot: Bot, toolchain: String? = nil) async -> Workspace {
        let pullRequest = claim.integration.pullRequest
        let secrets = Workspace.secrets(of: Workspace.bot(bot, for: pullRequest), in: serverEnvironment)
        let limits = pullRequest?.fork == true ? bot.limits.over(limits).capped(by: forkLimits) : bot.limits.over(limits)
        let log = IntegrationLog(
            path: store.logLocation(bot: bot.name, number: claim.number) ?? layout.log(of: bot.name, number: claim.number),
            sink: store.logSink(for: claim), secrets: secrets.map(\.value), limit: limits.log ?? IntegrationLog.defaultLimit)
        for secret in secrets where !secret.value.isEmpty && SecretMask.isTooShort(secret.value) {
            await log.note("the secret \(secret.name) is shorter than \(SecretMask.minimumLength) characters: it is not masked (use a longer one)")
        }
        var workspace = Workspace(
            bot: bot, number: claim.shownNumber, layout: layout, serverEnvironment: serverEnvironment, log: log,
            deadline: clock.monotonic.now + bot.timeout,
            pullRequest: pullRequest, hidden: pullRequest?.fork == true || bot.sandbox == .bubblewrap ? await secretFiles() : [],
            slot: claim.integration.workspaceSlot ?? 0)
        workspace.toolchain = toolchain
        workspace.limits = limits
        return workspace
    }

    /// Runs an integration of a bot without `matrix`, or one cell of a matrix (with `bot` as it
    /// runs in `cell`).
    func run(
        _ claim: Claim, of bot: Bot, cell: Cell?, spare: any SpareExecutors, progress: @escaping @Sendable (Progress) -> Void
    ) async -> Integration? {
        let folder = cell.flatMap { toolchains[$0.toolchain] }
        let workspace = await workspace(for: claim, of: bot, toolchain: folder)
        // Asked where it is needed (`swift --version`, ~50 ms the first time on a host): a
        // snapshot to seed from or to make, a module cache template, a cell's record.
        let version: SwiftVersion = { [versions] in await versions.version(of: folder) }
        guard let warm else {
            return await run(claim, of: bot, cell: cell, in: workspace, swiftVersion: version, spare: spare, progress: progress)
        }
        // Held from checkout until its snapshot is packed, after the result (`WorkspaceHolds`);
        // a pack of it still under way is hurried.
        await warm.packer.hurry(workspace.directory)
        await warm.holds.acquire(workspace.directory)
        guard let recorded = await run(claim, of: bot, cell: cell, in: workspace, swiftVersion: version, spare: spare, progress: progress) else {
            await warm.holds.release(workspace.directory)
            return nil
        }
        // the host's module cache template, when it has none, made beside what runs next
        if bot.cache != .none, workspace.confined { await warm.moduleCaches.make(for: workspace, swiftVersion: await version()) }
        await warm.keep(workspace, after: recorded, cell: WorkspaceSnapshot.cell(cell), swiftVersion: version, now: clock.now)
        return recorded
    }

    private func run(
        _ claim: Claim, of bot: Bot, cell: Cell?, in workspace: Workspace, swiftVersion version: @escaping SwiftVersion, spare: any SpareExecutors,
        progress: @escaping @Sendable (Progress) -> Void
    ) async -> Integration? {
        let log = workspace.log
        let steps = IntegrationSteps(
            context: context, claim: claim, workspace: workspace, cell: cell,
            warm: warm.map { IntegrationSteps.Warming(workspaces: $0, cell: WorkspaceSnapshot.cell(cell), swiftVersion: version) },
            spare: spare, progress: progress)
        guard var outcome = await ended(claim, with: await steps.run(), log: log) else { return nil }
        if cell != nil { outcome.swiftVersion = await version() }
        if bisects, bot.bisect.enabled, cell == nil {
            // As many commits at once as executors are idle (the store counts them), each bisect
            // integration in a workspace of its own.
            outcome.bisect = BisectRequest(maxIntegrations: bot.bisect.maxIntegrations)
            // A failure of several commits is likely bisected, here too: the bisect workspaces
            // this host would use start as copies of this one, made while the bot is still held.
            if executors > 1, claim.integration.bisectionID == nil, outcome.commits.count >= 2,
                outcome.issues.contains(where: { Bisection.soughtTypes.contains($0.type) })
            {
                await workspace.seedBisectWorkspaces(executors)
            }
        }
        await log.close()
        if let loss = await log.loss {
            // The log is where people look, and it is what failed: the reason says it instead.
            logger.error(
                "an integration's log lost output", metadata: ["bot": "\(bot.name)", "number": "\(claim.number)", "lost": "\(loss.sentence)"])
            outcome.reason = .logLost(path: loss.path, bytes: loss.bytes, message: loss.reason, besides: outcome.reason)
        }
        guard let recorded = await record(claim, outcome: outcome) else {
            await log.noteLocally("stopped: the result was not recorded: this host no longer holds the integration")
            return nil
        }
        return recorded
    }

    /// The outcome as it is to be recorded, its result noted in the log; nil (the log closed)
    /// when there is none to record. Stopped from outside: because someone asked (a newer commit,
    /// a closed pull request), which becomes its reason, or because another host ended it (then
    /// this host records nothing, and its log says why).
    func ended(_ claim: Claim, with outcome: IntegrationOutcome?, log: IntegrationLog) async -> IntegrationOutcome? {
        guard var outcome else {
            await log.close()
            return nil
        }
        if outcome.result == .canceled,
            let requests = await logger.bestEffort(
                "reading why \(claim.bot) #\(claim.number) was stopped",
                loses: "it is recorded as canceled without the reason given, and as this host's even if another host took it",
                { [store] () async throws(StoreError) in try await store.stopRequests(for: [claim]) })
        {
            if let lost = requests.lazy.compactMap(\.lost).first {
                await log.note("stopped: this host no longer holds the integration (\(lost))")
                await log.close()
                return nil
            }
            if let reason = requests.lazy.compactMap(\.reason).first { outcome.reason = reason }
        }
        await log.note("result: \(outcome.result.rawValue)\(outcome.reason.map { " (\($0.sentence))" } ?? "")")
        return outcome
    }

    /// Completes the integration, waiting for the store while it cannot be reached: a result is
    /// never dropped because the database was away for a while.
    func record(_ claim: Claim, outcome: IntegrationOutcome) async -> Integration? {
        var delay = Duration.milliseconds(200)
        while true {
            do {
                if claim.integration.cell != nil { return try await store.completeCell(claim, outcome: outcome, now: clock.now) }
                return try await store.complete(claim, outcome: outcome, now: clock.now)
            } catch .claimLost(_, let reason) {
                logger.warning(
                    "dropping the result of an integration this host no longer holds",
                    metadata: ["bot": "\(claim.bot)", "number": "\(claim.number)", "reason": "\(reason)"])
                return nil
            } catch .notFound(let what) {
                logger.error("cannot record the end of an integration: \(what) does not exist", metadata: ["bot": "\(claim.bot)"])
                return nil
            } catch {
                if Task.isCancelled {
                    logger.error("cannot record the end of an integration", metadata: ["bot": "\(claim.bot)", "error": "\(error)"])
                    return nil
                }
                logger.warning("cannot record the end of an integration yet; trying again", metadata: ["bot": "\(claim.bot)", "error": "\(error)"])
                await clock.monotonic.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }
}
