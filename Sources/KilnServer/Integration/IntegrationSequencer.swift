import Foundation
import KilnBuild
import KilnCore
import KilnGit
import KilnStore
import Logging
import Synchronization

/// Takes one claimed integration through its steps — checkout, before-triggers, building,
/// testing, processing, after-triggers — recording each in the store, and completes it.
///
/// A build that fails is a result, never a thrown error: every way an integration can end —
/// including an infrastructure fault, a timeout or a cancel (the task being canceled) — ends
/// with it completed in the store with a result and, where useful, a reason in its log.
public struct IntegrationSequencer: Sendable {
    public let store: any Store
    public let mirrors: Mirrors
    public let layout: DataDirectory
    /// The server's environment: where secrets and PATH come from. Nothing else of it reaches builds.
    public let serverEnvironment: [String: String]
    public let logger: Logger

    public init(store: any Store, mirrors: Mirrors, layout: DataDirectory, serverEnvironment: [String: String], logger: Logger) {
        self.store = store
        self.mirrors = mirrors
        self.layout = layout
        self.serverEnvironment = serverEnvironment
        self.logger = logger
    }

    /// What `kiln run` and the logs hear as the integration goes.
    public enum Progress: Sendable {
        case step(IntegrationStep)
        case stepEnded(IntegrationStep, seconds: Double)
    }

    /// Runs the claimed integration of `bot` and returns it completed; nil when the claim was
    /// lost on the way (another host took this one as gone and ended it): then nothing of this
    /// run is recorded beyond what was written while the claim held.
    public func run(_ claim: Claim, of bot: Bot, progress: @escaping @Sendable (Progress) -> Void = { _ in }) async -> Integration? {
        let pullRequest = claim.integration.pullRequest
        let log = IntegrationLog(
            path: store.logLocation(bot: bot.name, number: claim.number) ?? layout.log(of: bot.name, number: claim.number),
            sink: store.logSink(for: claim), secrets: Workspace.secrets(of: Workspace.bot(bot, for: pullRequest), in: serverEnvironment))
        let workspace = Workspace(
            bot: bot, number: claim.number, layout: layout, serverEnvironment: serverEnvironment, log: log, deadline: .now + bot.timeout,
            pullRequest: pullRequest)
        var steps = IntegrationSteps(sequencer: self, claim: claim, workspace: workspace, progress: progress)
        guard var outcome = await steps.run() else {
            await log.close()
            return nil
        }
        // Stopped from outside: because someone asked (a newer commit, a closed pull request),
        // which becomes its reason, or because another host ended it (then this host records
        // nothing, and its log says why).
        if outcome.result == .canceled, let requests = try? await store.stopRequests(for: [claim]) {
            if let lost = requests.first(where: \.lost) {
                await log.note("stopped: this host no longer holds the integration (\(lost.reason))")
                await log.close()
                return nil
            }
            if let request = requests.first { outcome.reason = request.reason }
        }
        await log.note("result: \(outcome.result.rawValue)\(outcome.reason.map { " (\($0))" } ?? "")")
        await log.close()
        guard let recorded = await record(claim, outcome: outcome) else {
            await log.noteLocally("stopped: the result was not recorded: this host no longer holds the integration")
            return nil
        }
        return recorded
    }

    /// Completes the integration, waiting for the store while it cannot be reached: a result is
    /// never dropped because the database was away for a while.
    func record(_ claim: Claim, outcome: IntegrationOutcome) async -> Integration? {
        var delay = Duration.milliseconds(200)
        while true {
            do {
                return try await store.complete(claim, outcome: outcome, now: Date())
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
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }
}

/// One integration on its way through the steps.
struct IntegrationSteps {
    let sequencer: IntegrationSequencer
    let claim: Claim
    let workspace: Workspace
    let progress: @Sendable (IntegrationSequencer.Progress) -> Void
    var commit: String?
    var commits: [Commit] = []
    var triggers: [TriggerRun] = []
    var stepStart = ContinuousClock.now
    var currentStep = IntegrationStep.checkout

    init(
        sequencer: IntegrationSequencer, claim: Claim, workspace: Workspace,
        progress: @escaping @Sendable (IntegrationSequencer.Progress) -> Void
    ) {
        self.sequencer = sequencer
        self.claim = claim
        self.workspace = workspace
        self.progress = progress
        self.commit = claim.commit
    }

    var integration: Integration { claim.integration }

    var bot: Bot { workspace.bot }
    var store: any Store { sequencer.store }
    var log: IntegrationLog { workspace.log }

    /// Why the integration must stop now.
    enum Stop: Error {
        case ended(IntegrationOutcome)
        /// The claim was lost: this host must stop without recording a result.
        case lost(String)
    }

    /// The outcome; nil when the claim was lost on the way.
    mutating func run() async -> IntegrationOutcome? {
        do throws(Stop) {
            try await checkout()
            try await runTriggers(.before, result: nil)
            let package = PackageBuild(workspace: workspace, layout: sequencer.layout)
            let built = try await build(package)
            let tested = try await test(package, built: built)
            var outcome = try await process(package, built: built, tested: tested)
            // An after trigger cannot change the result; how it ended is in the log and the trigger list.
            try? await runTriggers(.after, result: outcome.result)
            outcome.triggers = triggers
            progress(.stepEnded(currentStep, seconds: (ContinuousClock.now - stepStart).seconds))
            return outcome
        } catch {
            // Stopped early (checkout or before trigger failed, timeout, cancel): no after triggers,
            // since the deadline has passed or the integration was told to stop.
            switch error {
            case .ended(let outcome): return outcome
            case .lost(let reason):
                await log.note("stopped: \(reason)")
                return nil
            }
        }
    }

    /// Ends the integration here with `result`, keeping what it has learnt so far.
    func stop(_ result: IntegrationResult, _ reason: String?) -> Stop {
        .ended(IntegrationOutcome(result: result, reason: reason, commits: commits, triggers: triggers))
    }

    mutating func enter(_ step: IntegrationStep) async throws(Stop) {
        let now = ContinuousClock.now
        if step != .checkout { progress(.stepEnded(currentStep, seconds: (now - stepStart).seconds)) }
        currentStep = step
        stepStart = now
        progress(.step(step))
        if step != .checkout {
            do {
                try await store.advance(claim, to: step, now: Date())
            } catch .claimLost(_, let reason) {
                throw .lost("this host no longer holds the integration (\(reason))")
            } catch {
                throw stop(.internalError, "recording step \(step.rawValue): \(error)")
            }
        }
        if Task.isCancelled { throw stop(.canceled, "canceled") }
        if ContinuousClock.now >= workspace.deadline { throw timedOut() }
    }

    func timedOut() -> Stop {
        stop(.timeout, "the integration ran longer than its timeout of \(bot.timeout.configSpelling)")
    }

    // MARK: Steps

    mutating func checkout() async throws(Stop) {
        try await enter(.checkout)
        let pullRequest = integration.pullRequest
        if let pullRequest {
            let from = pullRequest.fork ? " from a fork (no secrets)" : ""
            await log.header(
                "checkout: \(bot.repository.url.redacted) pull request #\(pullRequest.number) (\(pullRequest.head) into \(pullRequest.base))\(from)")
        } else {
            await log.header("checkout: \(bot.repository.url.redacted) \(bot.repository.branch)")
        }
        let mirrors = sequencer.mirrors
        do {
            try workspace.prepare()
            let notes = NoteCollector()
            // A pull request's commits are those its head adds to the base branch as it is now;
            // the branch's are those since its previous integration.
            let head: String
            let previous: String?
            if let pullRequest {
                (previous, head) = try await mirrors.update(bot.repository, pullRef: pullRequest.ref, log: notes.add)
            } else {
                head = try await mirrors.update(bot.repository, log: notes.add)
                previous = try await store.predecessor(.withCommit, bot: bot.name, before: integration.number)?.commit
            }
            for note in notes.notes { await log.note(note) }
            let target = commit ?? head
            commit = target
            try await store.setCommit(claim, commit: target)
            try await mirrors.checkout(target, of: bot.repository, into: workspace.directory)
            commits = try await mirrors.commits(of: bot.repository, from: previous, to: target)
            await log.append(Array("checked out \(target) (\(commits.count) new commit\(commits.count == 1 ? "" : "s"))\n".utf8))
        } catch let error as GitError {
            await log.note(error.description)
            throw stop(.checkoutError, error.description)
        } catch StoreError.claimLost(_, let reason) {
            throw .lost("this host no longer holds the integration (\(reason))")
        } catch {
            await log.note("\(error)")
            throw stop(.internalError, "checkout: \(error)")
        }
    }

    mutating func runTriggers(_ phase: TriggerPhase, result: IntegrationResult?) async throws(Stop) {
        let scripts = bot.triggers.compactMap { trigger -> ScriptTrigger? in
            guard case .script(let script) = trigger, script.phase == phase else { return nil }
            if let result, !script.on.contains(result) { return nil }
            return script
        }
        guard !scripts.isEmpty || phase == .before else { return }
        try await enter(phase == .before ? .beforeTriggers : .afterTriggers)
        for script in scripts {
            let start = ContinuousClock.now
            let end = try ended(try await attempt { [workspace, commit, currentStep] in
                try await workspace.run(.shell(script.run), step: currentStep, commit: commit, result: result)
            })
            let status: Int
            switch end {
            case .exited(let code): status = Int(code)
            case .signaled(let signal): status = 128 + Int(signal)
            case .timedOut, .canceled: status = -1
            }
            triggers.append(TriggerRun(name: script.name, phase: phase, exitStatus: status, duration: (ContinuousClock.now - start).seconds))
            if status != 0 {
                await log.note("trigger '\(script.name)' failed with exit status \(status)")
                if phase == .before { throw stop(.triggerError, "before trigger '\(script.name)' failed with exit status \(status)") }
            }
        }
    }

    mutating func build(_ package: PackageBuild) async throws(Stop) -> BuildOutput {
        try await enter(.building)
        let built = try await attempt { [commit] in try await package.build(commit: commit) }
        _ = try ended(built.end)
        return built
    }

    mutating func test(_ package: PackageBuild, built: BuildOutput) async throws(Stop) -> TestOutput {
        guard bot.test.enabled, built.succeeded else { return TestOutput() }
        try await enter(.testing)
        let tested = try await attempt { [commit] in try await package.test(commit: commit) }
        _ = try ended(tested.end)
        return tested
    }

    mutating func process(_ package: PackageBuild, built: BuildOutput, tested: TestOutput) async throws(Stop) -> IntegrationOutcome {
        try await enter(.processing)
        let carried = package.carriedWarnings(from: await previousIssues(), build: built)
        if !carried.isEmpty { await log.note("\(carried.count) warning(s) kept from files this build did not recompile") }
        var outcome = IssueBuilder.outcome(build: built, carried: carried, tests: tested)
        if let commit {
            let (mirrors, repository) = (sequencer.mirrors, bot.repository)
            await IssueBuilder.attribute(&outcome.issues, commits: commits) { file, line in
                try? await mirrors.blame(of: repository, file: file, line: line, at: commit)
            }
        }
        outcome.commits = commits
        outcome.triggers = triggers
        return outcome
    }

    /// The open issues of the integration this one is compared with.
    func previousIssues() async -> [IntegrationIssue] {
        guard let previous = try? await store.predecessor(.built, bot: bot.name, before: integration.number), !previous.expired,
            let detail = try? await store.integration(bot: bot.name, number: previous.number)
        else { return [] }
        return detail.issues
    }

    // MARK: Processes

    /// A process's end, unless it means the integration is over (timeout, cancel).
    func ended(_ end: ProcessEnd) throws(Stop) -> ProcessEnd {
        switch end {
        case .timedOut: throw timedOut()
        case .canceled: throw stop(.canceled, "canceled")
        case .exited, .signaled: return end
        }
    }

    /// Runs a step's processes; a process that cannot start ends the integration.
    func attempt<T>(_ body: () async throws -> T) async throws(Stop) -> T {
        do {
            return try await body()
        } catch {
            await log.note("\(error)")
            guard workspace.exists else {
                // The integration's own doing (a script or build removed it), not Kiln's fault.
                let reason = "the workspace \(workspace.directory) is gone: a process of this integration deleted it"
                await log.note(reason)
                throw stop(currentStep == .beforeTriggers || currentStep == .afterTriggers ? .triggerError : .buildErrors, reason)
            }
            throw stop(.internalError, "\(error)")
        }
    }
}

/// Notes that libgit2's callbacks report from their own threads, read once the call is over.
final class NoteCollector: Sendable {
    private let collected = Mutex<[String]>([])

    @Sendable func add(_ note: String) { collected.withLock { $0.append(note) } }
    var notes: [String] { collected.withLock { $0 } }
}
