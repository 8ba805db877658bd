import Foundation
import KilnBuild
import KilnCore
import KilnGit
import KilnStore
import Logging

/// Runs one claimed integration from checkout to completion and records it in the store.
///
/// Steps: checkout → before-triggers → building → testing → processing → after-triggers. A build
/// that fails is a result, never a thrown error: every way an integration can end — including an
/// infrastructure fault — ends with it completed in the store with a result and, where useful, a
/// reason in its log.
public struct IntegrationExecutor: Sendable {
    public let store: any Store
    public let mirrors: Mirrors
    /// `<data>`: workspaces/, logs/ and homes/ live under it.
    public let dataDirectory: String
    /// The server's environment: where secrets and PATH come from. Nothing else of it reaches builds.
    public let serverEnvironment: [String: String]
    public let logger: Logger

    public init(store: any Store, mirrors: Mirrors, dataDirectory: String, serverEnvironment: [String: String], logger: Logger) {
        self.store = store
        self.mirrors = mirrors
        self.dataDirectory = dataDirectory
        self.serverEnvironment = serverEnvironment
        self.logger = logger
    }

    /// What `kiln run` and the logs hear as the integration goes.
    public enum Progress: Sendable {
        case step(IntegrationStep)
        case stepEnded(IntegrationStep, seconds: Double)
    }

    public func logPath(bot: String, number: Int) -> String { "\(dataDirectory)/logs/\(bot)/\(number).log" }
    public func workspace(for bot: String) -> String { "\(dataDirectory)/workspaces/\(bot)" }

    /// Runs `integration` (already claimed) of `bot` and returns it completed.
    public func run(_ integration: Integration, of bot: Bot, progress: @escaping @Sendable (Progress) -> Void = { _ in }) async -> Integration {
        let secrets = bot.secrets.compactMap { serverEnvironment[$0] }
        let log = IntegrationLog(path: logPath(bot: bot.name, number: integration.number), secrets: secrets)
        var run = Run(executor: self, bot: bot, integration: integration, log: log, progress: progress)
        let outcome = await run.execute()
        await log.note("result: \(outcome.result.rawValue)\(outcome.reason.map { " (\($0))" } ?? "")")
        await log.close()
        do {
            return try store.complete(integration.id, outcome: outcome, now: Date())
        } catch {
            logger.error("cannot record the end of an integration", metadata: ["bot": "\(bot.name)", "error": "\(error)"])
            var ended = integration
            ended.step = .completed
            ended.result = outcome.result
            return ended
        }
    }
}

/// The state of one integration while it runs.
struct Run {
    let executor: IntegrationExecutor
    let bot: Bot
    let integration: Integration
    let log: IntegrationLog
    let progress: @Sendable (IntegrationExecutor.Progress) -> Void
    let deadline: ContinuousClock.Instant
    var commit: String?
    var commits: [Commit] = []
    var triggers: [TriggerRun] = []
    var stepStart = ContinuousClock.now
    var currentStep = IntegrationStep.checkout

    init(
        executor: IntegrationExecutor, bot: Bot, integration: Integration, log: IntegrationLog,
        progress: @escaping @Sendable (IntegrationExecutor.Progress) -> Void
    ) {
        self.executor = executor
        self.bot = bot
        self.integration = integration
        self.log = log
        self.progress = progress
        self.deadline = .now + bot.timeout
        self.commit = integration.commit
    }

    var workspace: String { executor.workspace(for: bot.name) }

    /// Why the integration must stop now, if it must.
    enum Stop: Error {
        case ended(IntegrationOutcome)
    }

    mutating func execute() async -> IntegrationOutcome {
        do {
            try await checkout()
            try await runTriggers(.before, result: nil)
            let built = try await build()
            let tests = try await test(built: built)
            let outcome = try await process(built: built, tested: tests)
            return await after(outcome)
        } catch {
            // Stopped early (checkout or before trigger failed, timeout, cancel): no after triggers,
            // since the deadline has passed or the integration was told to stop.
            guard case .ended(let outcome) = error else { return IntegrationOutcome(result: .internalError) }
            return outcome
        }
    }

    // MARK: Steps

    mutating func enter(_ step: IntegrationStep) async throws(Stop) {
        let now = ContinuousClock.now
        if step != .checkout { progress(.stepEnded(currentStep, seconds: Self.seconds(now - stepStart))) }
        currentStep = step
        stepStart = now
        progress(.step(step))
        if step != .checkout {
            do {
                try executor.store.advance(integration.id, to: step, now: Date())
            } catch {
                throw .ended(IntegrationOutcome(result: .internalError, reason: "recording step \(step.rawValue): \(error)", commits: commits))
            }
        }
        if Task.isCancelled { throw .ended(canceled()) }
        if ContinuousClock.now >= deadline { throw .ended(timedOut()) }
    }

    mutating func checkout() async throws(Stop) {
        try await enter(.checkout)
        await log.header("checkout: \(bot.repository.url.redacted) \(bot.repository.branch)")
        do {
            try prepareWorkspace()
            let notes = LineCollector(root: workspace)
            let head = try await executor.mirrors.update(bot.repository, log: notes.consumeNote)
            for note in notes.notes { await log.note(note) }
            let target = commit ?? head
            commit = target
            try executor.store.setCommit(integration.id, commit: target)
            try await executor.mirrors.checkout(target, of: bot.repository, into: workspace)
            let previous = try executor.store.integrations(bot: bot.name, limit: 20, before: integration.number).first { $0.commit != nil }?.commit
            commits = try await executor.mirrors.commits(of: bot.repository, from: previous, to: target)
            await log.append(Array("checked out \(target) (\(commits.count) new commit\(commits.count == 1 ? "" : "s"))\n".utf8))
        } catch let error as GitError {
            await log.note(error.description)
            throw .ended(IntegrationOutcome(result: .checkoutError, reason: error.description, commits: commits))
        } catch {
            await log.note("\(error)")
            throw .ended(IntegrationOutcome(result: .internalError, reason: "checkout: \(error)", commits: commits))
        }
    }

    /// Wipes the workspace when the bot's clean schedule says it is time.
    func prepareWorkspace() throws {
        let marker = "\(executor.dataDirectory)/workspaces/.\(bot.name).cleaned"
        let last = (try? FileManager.default.attributesOfItem(atPath: marker)[.modificationDate] as? Date) ?? .distantPast
        let age = Date().timeIntervalSince(last)
        let due: Bool
        switch bot.clean {
        case .never: due = false
        case .always: due = true
        case .daily: due = age >= 86_400
        case .weekly: due = age >= 7 * 86_400
        }
        guard due else { return }
        try? FileManager.default.removeItem(atPath: workspace)
        try FileManager.default.createDirectory(atPath: (marker as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: marker))
    }

    /// The environment of every process: PATH, a HOME in the data directory, LANG, the bot's
    /// environment and secrets, and the KILN_ variables.
    func environment(result: IntegrationResult?) -> [String: String] {
        var variables: [String: String] = [
            "PATH": executor.serverEnvironment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin",
            "HOME": "\(executor.dataDirectory)/homes/\(bot.name)",
            "LANG": "C.UTF-8",
        ]
        for variable in bot.environment { variables[variable.name] = variable.value }
        for secret in bot.secrets { variables[secret] = executor.serverEnvironment[secret] ?? "" }
        variables["KILN_BOT"] = bot.name
        variables["KILN_INTEGRATION"] = String(integration.number)
        variables["KILN_COMMIT"] = commit ?? ""
        variables["KILN_BRANCH"] = bot.repository.branch
        variables["KILN_WORKSPACE"] = workspace
        variables["KILN_LOG"] = log.path
        if let result { variables["KILN_RESULT"] = result.rawValue }
        return variables
    }

    /// Runs one process of this integration; a timeout or cancellation ends the integration.
    mutating func runProcess(_ command: StepCommand, result: IntegrationResult? = nil, onLine: @escaping @Sendable (Substring) -> Void = { _ in })
        async throws(Stop) -> ProcessEnd
    {
        try? FileManager.default.createDirectory(atPath: "\(executor.dataDirectory)/homes/\(bot.name)", withIntermediateDirectories: true)
        await log.header("\(currentStep.rawValue): \(command.display)")
        let end: ProcessEnd
        do {
            end = try await ProcessRunner.run(
                bot.sandbox == .bubblewrap ? sandboxed(command) : command, in: workspace, environment: environment(result: result), log: log,
                deadline: deadline, mark: executor.mark(of: integration), onLine: onLine)
        } catch {
            await log.note(error.description)
            guard FileManager.default.fileExists(atPath: workspace) else {
                // The integration's own doing (a script or build removed it), not Kiln's fault.
                let reason = "the workspace \(workspace) is gone: a process of this integration deleted it"
                await log.note(reason)
                let result: IntegrationResult = currentStep == .beforeTriggers || currentStep == .afterTriggers ? .triggerError : .buildErrors
                throw .ended(IntegrationOutcome(result: result, reason: reason, commits: commits, triggers: triggers))
            }
            throw .ended(IntegrationOutcome(result: .internalError, reason: error.description, commits: commits, triggers: triggers))
        }
        switch end {
        case .timedOut: throw .ended(timedOut())
        case .canceled: throw .ended(canceled())
        case .exited, .signaled: return end
        }
    }

    /// The command under bubblewrap: the whole file system read-only, a private /tmp, and only the
    /// workspace and the bot's HOME writable; the sandbox dies with Kiln. It stays in the step's
    /// process group, so a timeout or cancel kills it like any step.
    func sandboxed(_ command: StepCommand) -> StepCommand {
        let home = "\(executor.dataDirectory)/homes/\(bot.name)"
        let mirrors = executor.mirrors.directory
        var arguments = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        if FileManager.default.fileExists(atPath: mirrors) { arguments += ["--ro-bind", mirrors, mirrors] }
        arguments += ["--bind", workspace, workspace, "--bind", home, home, "--die-with-parent", "--chdir", workspace, "--", command.executable]
        return StepCommand("bwrap", arguments + command.arguments)
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
            let end = try await runProcess(.shell(script.run), result: result)
            let status: Int
            switch end {
            case .exited(let code): status = Int(code)
            case .signaled(let signal): status = 128 + Int(signal)
            case .timedOut, .canceled: status = -1
            }
            triggers.append(TriggerRun(name: script.name, phase: phase, exitStatus: status, duration: Self.seconds(ContinuousClock.now - start)))
            if status != 0 {
                await log.note("trigger '\(script.name)' failed with exit status \(status)")
                if phase == .before {
                    throw .ended(
                        IntegrationOutcome(
                            result: .triggerError, reason: "before trigger '\(script.name)' failed with exit status \(status)", commits: commits,
                            triggers: triggers))
                }
            }
        }
    }

    /// Diagnostics of the build, and whether it succeeded.
    struct Built {
        var diagnostics: [Diagnostic]
        var succeeded: Bool
        var status: String
    }

    mutating func build() async throws(Stop) -> Built {
        try await enter(.building)
        var arguments = ["build", "-c", bot.build.configuration.rawValue]
        if bot.test.enabled { arguments.append("--build-tests") }
        if bot.test.enabled, bot.test.coverage { arguments.append("--enable-code-coverage") }
        arguments += bot.build.arguments
        let collector = LineCollector(root: workspace)
        let started = Date()
        let end = try await runProcess(StepCommand("swift", arguments), onLine: collector.consumeBuildLine)
        let diagnostics = collector.diagnostics
        let carried = carriedWarnings(seen: diagnostics, buildStarted: started)
        if !carried.isEmpty { await log.note("\(carried.count) warning(s) kept from files this build did not recompile") }
        return Built(diagnostics: diagnostics + carried, succeeded: end.succeeded, status: Self.describe(end))
    }

    /// An incremental build prints nothing for files it does not recompile, so their warnings would
    /// look resolved. The previous integration's warnings in files that were not recompiled this
    /// time (their serialized diagnostics, `.build/…/<Module>.build/<File>.dia`, are older than this
    /// build) and that still exist are kept.
    func carriedWarnings(seen: [Diagnostic], buildStarted: Date) -> [Diagnostic] {
        guard
            let previous = try? executor.store.integrations(bot: bot.name, limit: 10, before: integration.number)
                .first(where: { [.succeeded, .warnings, .testFailures, .buildErrors].contains($0.result) && !$0.expired }),
            let detail = try? executor.store.integration(bot: bot.name, number: previous.number)
        else { return [] }
        let seenFiles = Set(seen.compactMap(\.file))
        let buildDirectory = "\(workspace)/.build/\(bot.build.configuration.rawValue)"
        let moduleDirectories = ((try? FileManager.default.contentsOfDirectory(atPath: buildDirectory)) ?? []).filter { $0.hasSuffix(".build") }
        func recompiled(_ file: String) -> Bool {
            let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            var found = false
            for module in moduleDirectories {
                let dia = "\(buildDirectory)/\(module)/\(stem).dia"
                guard let modified = try? FileManager.default.attributesOfItem(atPath: dia)[.modificationDate] as? Date else { continue }
                found = true
                if modified >= buildStarted.addingTimeInterval(-1) { return true }
            }
            return !found
        }
        return detail.issues.compactMap { issue in
            guard issue.type == .warning, issue.status != .resolved, let file = issue.file, !seenFiles.contains(file), !file.hasPrefix("/"),
                FileManager.default.fileExists(atPath: "\(workspace)/\(file)"), !recompiled(file)
            else { return nil }
            let lines = issue.message.split(separator: "\n", omittingEmptySubsequences: false)
            let notes = lines.dropFirst().compactMap { $0.hasPrefix("note: ") ? String($0.dropFirst(6)) : nil }
            return Diagnostic(severity: .warning, file: file, line: issue.line, column: nil, message: String(lines.first ?? ""), notes: notes)
        }
    }

    struct Tested {
        var tests: [TestCase]
        var coverage: Double?
    }

    mutating func test(built: Built) async throws(Stop) -> Tested {
        guard bot.test.enabled, built.succeeded else { return Tested(tests: []) }
        try await enter(.testing)
        let events = "\(executor.dataDirectory)/logs/\(bot.name)/\(integration.number).events.jsonl"
        try? FileManager.default.removeItem(atPath: events)
        var arguments = ["test", "--skip-build", "-c", bot.build.configuration.rawValue, "--experimental-event-stream-output", events]
        if bot.test.coverage { arguments.append("--enable-code-coverage") }
        arguments += bot.test.arguments
        let collector = LineCollector(root: workspace)
        let end = try await runProcess(StepCommand("swift", arguments), onLine: collector.consumeTestLine)
        let crash: String? = end.succeeded ? nil : "the test process ended: \(Self.describe(end))"
        var tests = collector.xctests(crash: crash)
        let stream = (try? String(contentsOfFile: events, encoding: .utf8)) ?? ""
        var swiftTesting = SwiftTestingEventParser(root: workspace)
        for line in stream.split(separator: "\n") { swiftTesting.consume(line) }
        tests += swiftTesting.finish(crash: crash)
        try? FileManager.default.removeItem(atPath: events)
        if !end.succeeded, tests.allSatisfy({ $0.status != .failed }) {
            // The test process failed without any test failing: report it as one failed test.
            tests.append(TestCase(suite: "swift test", name: "run", status: .failed, duration: 0, message: "swift test \(Self.describe(end))"))
        }
        var coverage: Double?
        if bot.test.coverage {
            let path = "\(workspace)/.build/\(bot.build.configuration.rawValue)/codecov"
            let export = (try? FileManager.default.contentsOfDirectory(atPath: path))?.first { $0.hasSuffix(".json") }
            coverage = export.flatMap { Coverage.percentage(exportAt: "\(path)/\($0)", root: workspace) }
        }
        return Tested(tests: tests, coverage: coverage)
    }

    mutating func process(built: Built, tested: Tested) async throws(Stop) -> IntegrationOutcome {
        try await enter(.processing)
        var diagnostics = built.diagnostics
        if !built.succeeded, !diagnostics.contains(where: { $0.severity == .error }) {
            diagnostics.append(Diagnostic(severity: .error, file: nil, line: nil, column: nil, message: "swift build \(built.status)"))
        }
        var issues = IssueBuilder.issues(diagnostics: diagnostics, tests: tested.tests)
        await attribute(&issues)
        let errors = issues.filter { $0.type == .error }.count
        let warnings = issues.filter { $0.type == .warning }.count
        let failures = tested.tests.filter { $0.status == .failed }.count
        let result = IntegrationResult.decide(buildFailed: !built.succeeded, errors: errors, testFailures: failures, warnings: warnings)
        return IntegrationOutcome(
            result: result, errors: errors, warnings: warnings, tests: tested.tests, coverage: tested.coverage, issues: issues, commits: commits,
            triggers: triggers)
    }

    /// Who introduced each issue: the author of its line when blame says the line changed in this
    /// integration's commits, else everyone who committed in them.
    func attribute(_ issues: inout [IntegrationIssue]) async {
        guard let commit, !commits.isEmpty else { return }
        let inRange = Set(commits.map(\.sha))
        let authors = Dictionary(commits.map { ($0.email, Committer(name: $0.author, email: $0.email, commit: $0.sha)) }) { first, _ in first }
            .values.sorted { $0.email < $1.email }
        for index in issues.indices {
            if let file = issues[index].file, let line = issues[index].line, !file.hasPrefix("/"),
                let blame = try? await executor.mirrors.blame(of: bot.repository, file: file, line: line, at: commit), inRange.contains(blame.commit)
            {
                issues[index].introducedBy = [Committer(name: blame.author, email: blame.email, commit: blame.commit)]
            } else {
                issues[index].introducedBy = authors
            }
        }
    }

    mutating func after(_ outcome: IntegrationOutcome) async -> IntegrationOutcome {
        var outcome = outcome
        do throws(Stop) {
            try await runTriggers(.after, result: outcome.result)
        } catch {
            // An after trigger cannot change the result; how it ended is in the log and the trigger list.
        }
        outcome.triggers = triggers
        progress(.stepEnded(currentStep, seconds: Self.seconds(ContinuousClock.now - stepStart)))
        return outcome
    }

    func timedOut() -> IntegrationOutcome {
        IntegrationOutcome(
            result: .timeout, reason: "the integration ran longer than its timeout of \(bot.timeout.configSpelling)", commits: commits,
            triggers: triggers)
    }

    func canceled() -> IntegrationOutcome {
        IntegrationOutcome(result: .canceled, reason: "canceled", commits: commits, triggers: triggers)
    }

    static func describe(_ end: ProcessEnd) -> String {
        switch end {
        case .exited(let code): "exited with status \(code)"
        case .signaled(let signal): "was killed by signal \(signal)"
        case .timedOut: "timed out"
        case .canceled: "was canceled"
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Collects parsed output from a process's lines, which arrive on another task.
final class LineCollector: @unchecked Sendable {
    // Guarded by `lock`; lines arrive from the output-reading task, results are read after it ends.
    private let lock = NSLock()
    private var diagnosticParser: DiagnosticParser
    private var xctestParser: XCTestOutputParser
    private var collectedNotes: [String] = []

    init(root: String) {
        diagnosticParser = DiagnosticParser(root: root)
        xctestParser = XCTestOutputParser(root: root)
    }

    @Sendable func consumeBuildLine(_ line: Substring) { lock.withLock { diagnosticParser.consume(line.utf8) } }
    @Sendable func consumeTestLine(_ line: Substring) { lock.withLock { xctestParser.consume(line) } }

    @Sendable func consumeNote(_ line: String) { lock.withLock { collectedNotes.append(line) } }

    var diagnostics: [Diagnostic] { lock.withLock { diagnosticParser.diagnostics } }
    var notes: [String] { lock.withLock { collectedNotes } }
    func xctests(crash: String?) -> [TestCase] { lock.withLock { xctestParser.finish(crash: crash) } }
}

extension IntegrationExecutor {
    /// The mark every process of `integration` carries in its environment (`KILN_MARK`): the data
    /// directory, the bot and the number, so that two servers on one machine never mix them up.
    public func mark(of integration: Integration) -> String {
        "\(dataDirectory):\(integration.bot)#\(integration.number)"
    }

    /// Kills the processes an integration left behind, such as those of a server that was killed
    /// mid-integration; returns how many there were.
    @discardableResult
    public func killLeftovers(of integration: Integration) -> Int {
        ProcessRunner.killMarked(mark(of: integration))
    }
}
