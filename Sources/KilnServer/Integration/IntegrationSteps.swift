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
import Synchronization

/// One integration on its way through the steps. What it is given (the claim, the workspace,
/// its cell) is fixed; what the steps learn on the way (the commit and the commits, the
/// dependencies, the triggers run, the step it is at) travels in a `Course` that `run` hands
/// from one step to the next, so that a step's signature says what it reads and what it adds.
struct IntegrationSteps {
    let context: IntegrationContext
    let claim: Claim
    let workspace: Workspace
    /// For a cell of a matrix: which. It is compared with the same cell of earlier integrations.
    let cell: Cell?
    /// Where a new workspace gets its `.build` (`startWorkspace`); nil: it builds from nothing.
    let warm: Warming?
    /// The host's idle executors, which its test shards borrow (`test.shards`).
    let spare: any SpareExecutors
    let progress: @Sendable (IntegrationSequencer.Progress) -> Void

    /// What starting a workspace warm needs: the host's snapshots, the cell's key, its compiler
    /// (asked only when a snapshot or a template is at hand).
    struct Warming: Sendable {
        let workspaces: WarmWorkspaces
        let cell: String
        let swiftVersion: SwiftVersion
    }

    /// What the steps have learnt and done so far: `run` (`runCells` for a matrix) holds it and
    /// hands it on; a step that adds to it takes it `inout`, one that only reads it by value.
    struct Course {
        /// The commit integrated: the claim's, and after the checkout the one checked out.
        var commit: String?
        /// The commits this integration brings (`checkout`).
        var commits: [Commit] = []
        /// The commit this one's API is compared with: the previous integration's, or a pull
        /// request's base (`checkout`).
        var baseline: String?
        /// The bot's `clean` schedule wiped the workspace for this integration (`checkout`).
        var wiped = false
        /// The package's pins, as Kiln's mirrors had them for the build (`build`).
        var dependencies: [DependencyPin] = []
        /// The integration this one is compared with, read once by `build` (`previousDetail`).
        var previous: IntegrationDetail?
        var triggers: [TriggerRun] = []
        /// The archive kept with the integration, which after triggers see (`keep`).
        var archive: (file: String, contents: String)?
        var step = IntegrationStep.checkout
        var stepStart: ContinuousClock.Instant
    }

    /// Whether this integration analyzes: a cell only when it is its matrix's first (the findings
    /// would be the same in every cell).
    var analyzes: Bool { cell == nil || cell == bot.matrix?.cells.first }

    /// Whether this integration archives: a cell only when it is the one `archive.cell` names,
    /// by default its matrix's first (one archive is kept).
    var archives: Bool { cell == nil || cell?.name == (bot.archive.cell ?? bot.matrix?.cells.first?.name) }

    var integration: Integration { claim.integration }

    var bot: Bot { workspace.bot }
    var store: any IntegrationQueue & IntegrationRecords & LogsAndAssets { context.store }
    var log: IntegrationLog { workspace.log }

    /// Where an integration starts: its claim's commit, at the checkout, now.
    func start() -> Course {
        Course(commit: claim.commit, stepStart: context.clock.monotonic.now)
    }

    /// Why the integration must stop now.
    enum Stop: Error {
        case ended(IntegrationResult, IntegrationReason?)
        /// The claim was lost: this host must stop without recording a result.
        case lost(String)
    }

    /// The outcome; nil when the claim was lost on the way.
    func run() async -> IntegrationOutcome? {
        var course = start()
        do throws(Stop) {
            try await checkout(&course)
            let origin = await startWorkspace(wiped: course.wiped)
            async let recorded = Self.recordOrigin(origin, of: claim, in: warm)
            var stopped: Stop?
            do throws(Stop) {
                try await runTriggers(.before, result: nil, &course)
            } catch {
                stopped = error
            }
            try recordedOrigin(await recorded)
            if let stopped { throw stopped }
            let package = PackageBuild(workspace: workspace, layout: context.layout)
            let built = try await build(package, &course)
            var tested = try await test(package, built: built, &course)
            var regressed = try await performanceRegressions(package, tests: &tested.tests, course)
            regressed += try await benchmarkRegressions(package, tests: &tested.tests, course)
            let analyzed = try await analyze(package, &course)
            let archived = try await archive(package, built: built, tested: tested, &course)
            var outcome = try await process(
                package, built: built, tested: tested, analyzed: analyzed, regressed: regressed, archived: archived, &course)
            try await keep(archived, outcome: &outcome, &course)
            if cell == nil { notReproduced(&outcome) }
            // An after trigger cannot change the result; how it ended is in the log and the trigger
            // list. A bisect integration runs none: it only looks at an old commit; nor does a
            // cell: its integration runs them once, with the result of all its cells.
            if integration.bisectionID == nil, cell == nil { try? await runTriggers(.after, result: outcome.result, &course) }
            outcome.triggers = course.triggers
            ended(course)
            return outcome
        } catch {
            // Stopped early (checkout or before trigger failed, timeout, cancel): no after triggers,
            // since the deadline has passed or the integration was told to stop.
            return await outcome(of: error, course)
        }
    }

    /// The outcome of an integration stopped early, with what it had learnt; nil when the claim
    /// was lost.
    func outcome(of stop: Stop, _ course: Course) async -> IntegrationOutcome? {
        switch stop {
        case .ended(let result, let reason):
            var outcome = IntegrationOutcome(result: result, reason: reason, commits: course.commits, triggers: course.triggers)
            // A limit reached is a finding of the change, as an error is: an issue, not only a reason.
            if case .limitReached(let reached) = reason { outcome.issues = [IssueBuilder.issue(reached)] }
            return outcome
        case .lost(let reason):
            await log.note("stopped: \(reason)")
            return nil
        }
    }

    /// Reports the last step's end.
    func ended(_ course: Course) {
        progress(.stepEnded(course.step, seconds: context.clock.monotonic.since(course.stepStart).seconds))
    }

    /// Ends the integration here with `result`, keeping what it has learnt so far.
    func stop(_ result: IntegrationResult, _ reason: IntegrationReason?) -> Stop {
        .ended(result, reason)
    }

    /// Moves on to `step`. The store records it (not the checkout: the claim is its record) unless
    /// `recordedHere` is false, for a caller that records it beside the step's first process
    /// (`record`, `recorded`).
    func enter(_ step: IntegrationStep, _ course: inout Course, recordedHere: Bool = true) async throws(Stop) {
        let now = context.clock.monotonic.now
        if step != .checkout { progress(.stepEnded(course.step, seconds: (now - course.stepStart).seconds)) }
        course.step = step
        course.stepStart = now
        progress(.step(step))
        if step != .checkout, recordedHere {
            try recorded(step, await Self.record(step, of: claim, in: store, now: context.clock.now))
        }
        if Task.isCancelled { throw stop(.canceled, .canceled) }
        if context.clock.monotonic.now >= workspace.deadline { throw timedOut() }
    }

    /// Records that the integration `claim` holds is at `step`; the failure, if it failed.
    static func record(_ step: IntegrationStep, of claim: Claim, in store: any IntegrationQueue, now: Date) async -> StoreError? {
        do {
            try await store.advance(claim, to: step, now: now)
            return nil
        } catch {
            return error
        }
    }

    /// Ends the integration if recording `step` failed: a lost claim stops it without a result.
    func recorded(_ step: IntegrationStep, _ failure: StoreError?) throws(Stop) {
        switch failure {
        case nil: return
        case .claimLost(_, let reason)?: throw .lost("this host no longer holds the integration (\(reason))")
        case let error?: throw stop(.internalError, .fault(stage: .recordingStep(step), message: "\(error)"))
        }
    }

    func timedOut() -> Stop {
        stop(.timeout, .timedOut(limit: bot.timeout))
    }

    // MARK: Processes

    /// A process's end, unless it means the integration is over (timeout, cancel).
    func ended(_ end: ProcessEnd) throws(Stop) -> ProcessEnd {
        switch end {
        case .timedOut: throw timedOut()
        case .canceled: throw stop(.canceled, .canceled)
        case .limitReached(let reached): throw stop(.buildErrors, .limitReached(reached))
        case .exited, .signaled, .stopped: return end
        }
    }

    /// Runs a step's processes; a process that cannot start ends the integration: as
    /// `workspaceGone` when the integration's own doing removed the workspace, else as an
    /// internal error.
    func attempt<T>(workspaceGone: IntegrationResult = .buildErrors, _ body: () async throws -> T) async throws(Stop) -> T {
        do {
            return try await body()
        } catch {
            await log.note("\(error)")
            guard workspace.exists else {
                // The integration's own doing (a script or build removed it), not Kiln's fault.
                let reason = IntegrationReason.workspaceDeleted(path: workspace.directory)
                await log.note(reason.sentence)
                throw stop(workspaceGone, reason)
            }
            throw stop(.internalError, .fault(stage: .other, message: "\(error)"))
        }
    }
}

/// Notes that libgit2's callbacks report from their own threads, read once the call is over.
final class NoteCollector: Sendable {
    private let collected = Mutex<[String]>([])

    @Sendable func add(_ note: String) { collected.withLock { $0.append(note) } }
    var notes: [String] { collected.withLock { $0 } }
}
