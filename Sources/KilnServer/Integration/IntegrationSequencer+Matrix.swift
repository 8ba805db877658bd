import Foundation
import KilnBuild
import KilnCore
import KilnPresentation
import KilnStore

/// A bot with a `matrix`: its integration checks out, queues one cell per combination of the
/// axes, runs cells itself while any is queued that it can run (so a host of one executor runs
/// them all, one after another), waits for those other executors and hosts took, and then
/// records what they found together: the worst cell's result, each issue once with its cells,
/// every test result with its cell.
extension IntegrationSequencer {
    func runMatrix(_ claim: Claim, of bot: Bot, matrix: Matrix, progress: @escaping @Sendable (Progress) -> Void) async -> Integration? {
        let workspace = await workspace(for: claim, of: bot)
        let log = workspace.log
        var steps = IntegrationSteps(sequencer: self, claim: claim, workspace: workspace, progress: progress)
        guard var outcome = await ended(claim, with: await steps.runCells(matrix), log: log) else { return nil }
        if bisects, bot.bisect.enabled { outcome.bisect = BisectRequest(maxIntegrations: bot.bisect.maxIntegrations) }
        await log.close()
        return await record(claim, outcome: outcome)
    }
}

extension IntegrationSteps {
    /// The matrix integration's steps: checkout, its cells (the `testing` step), what they found
    /// together (`processing`), the after triggers in its own workspace. Ending early ends its
    /// cells: the queued ones at once, the running ones asked to stop.
    mutating func runCells(_ matrix: Matrix) async -> IntegrationOutcome? {
        do throws(Stop) {
            try await checkout()
            try await enter(.testing)
            let cells = try await cellsToRun(of: matrix)
            await log.header("cells: \(cells.map(\.name).joined(separator: ", ")), at once on idle executors")
            try await storing { [store, claim, sequencer] () async throws(StoreError) in
                try await store.addCells(cells.map(CellRequest.init), to: claim, now: sequencer.clock.now)
            }
            try await superviseCells()
            try await enter(.processing)
            let found = try await storing { [store, claim] () async throws(StoreError) in try await store.cellOutcomes(of: claim) }
            for outcome in found { await log.note(CellText.line(outcome.cell)) }
            var outcome = IntegrationOutcome.merging(found, commits: commits)
            if integration.bisectionID == nil { try? await runTriggers(.after, result: outcome.result) }
            outcome.triggers = triggers
            progress(.stepEnded(currentStep, seconds: (ContinuousClock.now - stepStart).seconds))
            return outcome
        } catch {
            switch error {
            case .ended(let outcome):
                let (store, claim, now, reason) = (store, claim, sequencer.clock.now, outcome.reason ?? outcome.result.rawValue)
                await sequencer.logger.bestEffort(
                    "ending the cells of \(claim.bot) #\(claim.number)", loses: "they end when the integration is recorded, which is retried",
                    { () async throws(StoreError) in try await store.endCells(of: claim, reason: reason, now: now) })
                return outcome
            case .lost(let reason):
                await log.note("stopped: \(reason)")
                return nil
            }
        }
    }

    /// The matrix's cells; for a bisect integration, only those where the failures it looks for
    /// were found (a failure only in release is bisected in release alone).
    func cellsToRun(of matrix: Matrix) async throws(Stop) -> [Cell] {
        guard let id = integration.bisectionID else { return matrix.cells }
        let (store, bot) = (store, bot.name)
        let found = try await storing { () async throws(StoreError) -> Set<String> in
            guard let (bisection, bisected) = try await store.bisection(id: id),
                let detail = try await store.integration(bot: bot, number: bisected)
            else { return [] }
            let sought = Set(bisection.fingerprints)
            return Set(detail.issues.filter { sought.contains($0.fingerprint) }.flatMap(\.cells))
        }
        let failing = matrix.cells.filter { found.contains($0.name) }
        return failing.isEmpty ? matrix.cells : failing
    }

    /// Runs this integration's queued cells that this host can run, one after another, until
    /// none is queued; then waits for the cells other executors run. A cell whose toolchain no
    /// live host offers ends with a reason that says so, instead of waiting for ever.
    mutating func superviseCells() async throws(Stop) {
        let offered = sequencer.offeredToolchains
        let owner = integration.owner ?? ProcessOwner.current(host: integration.host ?? "")
        while true {
            if Task.isCancelled { throw stop(.canceled, "canceled") }
            if ContinuousClock.now >= workspace.deadline { throw timedOut() }
            let mine = try await storing { [store, claim, sequencer] () async throws(StoreError) in
                try await store.claimCell(of: claim, owner: owner, toolchains: offered, now: sequencer.clock.now)
            }
            if let mine {
                _ = await sequencer.run(mine, of: bot, progress: { _ in })
                continue
            }
            let cells = try await storing { [store, claim] () async throws(StoreError) in try await store.cells(of: claim) }
            if cells.allSatisfy({ $0.step == .completed }) { return }
            let queued = Set(cells.filter { $0.step == .pending }.map { $0.toolchain ?? Matrix.defaultToolchain })
            if !queued.isSubset(of: offered) {
                let live = try await storing { [store] () async throws(StoreError) in try await store.offeredToolchains() }.union(offered)
                if !queued.isSubset(of: live) {
                    _ = try await storing { [store, claim, sequencer] () async throws(StoreError) in
                        try await store.endCellsWithoutHost(of: claim, offered: live, now: sequencer.clock.now)
                    }
                    continue
                }
            }
            try? await Task.sleep(for: Self.cellLook)
        }
    }

    /// How often an integration looks at its cells while others run them.
    static let cellLook = Duration.milliseconds(100)

    /// A store operation of this integration's: a lost claim stops it without a result, any
    /// other failure ends it as an internal error.
    func storing<T: Sendable>(_ body: @Sendable () async throws(StoreError) -> T) async throws(Stop) -> T {
        do {
            return try await body()
        } catch .claimLost(_, let reason) {
            throw .lost("this host no longer holds the integration (\(reason))")
        } catch {
            throw stop(.internalError, "\(error)")
        }
    }
}

/// Each toolchain's `swift --version`, asked once per `swift` binary (a toolchain replaced in
/// place is asked again) and kept in the data directory: running it costs 50 ms, which every
/// cell of every `kiln run` would pay again (measured: 72 ms of Kiln's own time per cell, 50 of
/// them this, with four toolchains).
actor ToolchainVersions {
    /// What is known of one binary: its size and time when asked, and what it said.
    struct Known: Codable, Equatable {
        var size: Int
        var modified: Double
        var version: String?
    }

    private let file: String
    private var known: [String: Known]?

    init(file: String) {
        self.file = file
    }

    /// The version of the `swift` in `folder`, or the one on Kiln's PATH when nil.
    func version(of folder: String?) async -> String? {
        guard let found = folder.map({ "\($0)/swift" }) ?? Self.onPath("swift") else { return nil }
        // Known by the file it links to (an upgrade replaces that), run by its own name: the
        // driver is what it is by the name it is called.
        let path = URL(fileURLWithPath: found).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.intValue, let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970
        else { return nil }
        var known = self.known ?? Self.read(file)
        if let entry = known[path], entry.size == size, entry.modified == modified {
            self.known = known
            return entry.version
        }
        let version = await Toolchain.version(of: found)
        known[path] = Known(size: size, modified: modified, version: version)
        self.known = known
        // A cache: a write lost to another process's is asked again, once.
        if let data = try? JSONEncoder().encode(known) {
            let temporary = "\(file).\(ProcessInfo.processInfo.processIdentifier)"
            if FileManager.default.createFile(atPath: temporary, contents: data) { _ = rename(temporary, file) }
        }
        return version
    }

    private static func read(_ file: String) -> [String: Known] {
        guard let data = FileManager.default.contents(atPath: file) else { return [:] }
        return (try? JSONDecoder().decode([String: Known].self, from: data)) ?? [:]
    }

    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
