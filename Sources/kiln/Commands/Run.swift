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

import ArgumentParser
import Foundation
import KilnCore
import KilnGit
import KilnPresentation
import KilnServer
import KilnStore
import Logging

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run one integration of a bot now, in the foreground.",
        discussion: """
            Checks out the branch head (or with --pull, the head of that pull request, fetched from \
            the forge's pull ref), runs the before triggers, swift build, swift test and the after \
            triggers, records the integration in the store like the server would, and prints a summary. \
            A bot with a matrix runs every cell, one after another (--cell NAME: that one alone), and \
            prints each cell's result. \
            A pull request's issues are marked against the branch's latest integration. Exits 0 when \
            the result is succeeded or warnings, 1 otherwise.

            Examples:
              kiln run app
              kiln run app --pull 42
              kiln run app --cell default-release-none
              kiln run app --data /var/lib/kiln --bots /etc/kiln/Bots
            """
    )

    @OptionGroup var location: LocationOptions

    @Argument(help: ArgumentHelp("The bot to integrate.", valueName: "bot"))
    var bot: String

    @Option(help: ArgumentHelp("Integrate this pull (or merge) request instead of the branch.", valueName: "number"))
    var pull: Int?

    @Option(help: ArgumentHelp("For a bot with a matrix: run only this cell (such as default-release-none).", valueName: "cell"))
    var cell: String?

    func validate() throws {
        if let pull, pull < 1 { throw ValidationError("--pull takes a pull request number, 1 or more") }
    }

    func run() async throws {
        try await Self.integrate(bot, pull: pull, cell: cell, at: location)
    }

    /// Runs one integration of the bot `name` in this process and prints its result (`Kiln.main`
    /// calls it without parsing, for `kiln run BOT` alone).
    static func integrate(_ name: String, pull: Int?, cell: String?, at location: any ServerLocation) async throws {
        MallocArenas.limit()
        try await KilnApplication.openingLibraries { try await integrateOpening(name, pull: pull, cell: cell, at: location) }
    }

    /// `integrate`'s work, while the libraries open beside it.
    private static func integrateOpening(_ name: String, pull: Int?, cell: String?, at location: any ServerLocation) async throws {
        let (config, loaded, wanted) = try location.loadBot(named: name)
        // Where bubblewrap cannot run, a bot that wants the sandbox runs only unconfined by
        // `sandbox-fallback: none`; otherwise it is refused with what to do. A bot that runs
        // unconfined (never a pull request's, which may be a fork's) needs no probe: a sandbox
        // started and ended, ~5 ms of every such integration.
        let confined = pull != nil || wanted.sandbox != .none
        let sandbox = confined ? await SandboxAvailability.probe(config) : SandboxAvailability(fallback: config.sandboxFallback == Sandbox.none)
        let catalog = sandbox.apply(to: loaded)
        guard var runnable = catalog.bot(named: wanted.name) else {
            Console.error("error: bot '\(wanted.name)' cannot integrate: \(sandbox.sentence ?? "it is not runnable")")
            throw ExitCode.failure
        }
        if let cell {
            let cells = runnable.matrix?.cells ?? []
            guard let chosen = cells.first(where: { $0.name == cell }) else {
                let names = cells.isEmpty ? "it has no matrix" : "its cells are \(cells.map(\.name).joined(separator: ", "))"
                Console.error("error: bot '\(runnable.name)' has no cell '\(cell)': \(names)")
                throw ExitCode.failure
            }
            runnable.matrix = Matrix(only: chosen)
        }
        let bot = runnable
        if wanted.sandbox != bot.sandbox, let sentence = sandbox.sentence { Console.out("sandbox: \(sentence)") }
        var logger = Logger(label: "kiln")
        logger.logLevel = .warning
        let integration: Claim
        let application: KilnApplication
        do {
            application = try await KilnApplication.build(
                settings: ServerSettings(config: config), role: .foreground, sandbox: sandbox, logger: logger)
            var request = QueueRequest(bot, cause: .manual)
            if let pull {
                let pullRequest = try await Self.pullRequest(pull, of: bot, in: application.store)
                if pullRequest.title.isEmpty {
                    Console.out("pull request #\(pull) is not known from a webhook: integrating \(pullRequest.ref) as if from a fork (no secrets)")
                }
                request = QueueRequest(bot, cause: .manual, pullRequest: pullRequest, commit: nil)
            }
            integration = try await application.claimInForeground(request, bots: catalog)
        } catch let error as ServerSetupError {
            Console.error("error: \(error)")
            throw ExitCode.failure
        } catch let error as StoreError {
            Console.error("error: \(error)")
            throw ExitCode.failure
        } catch let error as KilnApplication.ForegroundError {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        let store = application.store
        let what = integration.integration.pullRequest.map { "pull request #\($0.number) into \(bot.repository.branch)" } ?? bot.repository.branch
        Console.out("\(bot.name) #\(integration.number): \(bot.repository.url.redacted) \(what)")
        let display = ProgressDisplay(live: isatty(STDOUT_FILENO) == 1)
        // Progress arrives synchronously from the executor; a stream keeps it in order for the display.
        let (events, sink) = AsyncStream.makeStream(of: IntegrationSequencer.Progress.self)
        enum Part: Sendable {
            case completed(Integration?)
            case drained
            case ticker
        }
        let completed = await withTaskGroup(of: Part.self) { group in
            group.addTask {
                let completed = await application.runInForeground(integration, of: bot) { sink.yield($0) }
                sink.finish()
                return .completed(completed)
            }
            group.addTask {
                for await event in events { await display.handle(event) }
                return .drained
            }
            if display.live {
                group.addTask {
                    while !Task.isCancelled {
                        await MonotonicClock.system.sleep(for: .milliseconds(500))
                        await display.tick()
                    }
                    return .ticker
                }
            }
            var completed: Integration??
            var drained = false
            while let part = await group.next() {
                switch part {
                case .completed(let integration): completed = .some(integration)
                case .drained: drained = true
                case .ticker: break
                }
                // Every event shown and the integration over: the ticker may stop.
                if completed != nil, drained { group.cancelAll() }
            }
            return completed ?? nil
        }
        await display.finish()
        guard let completed else {
            Console.error("error: another host took this one as gone and ended #\(integration.number); its result was not recorded")
            throw ExitCode.failure
        }
        var detail: IntegrationDetail?
        do {
            detail = try await store.integration(bot: bot.name, number: completed.number)
        } catch {
            Console.error("warning: #\(completed.number) was recorded, but its issues and tests cannot be read back to print them: \(error)")
        }
        let log = store.logLocation(bot: bot.name, number: completed.number) ?? "the store"
        Console.out(TerminalReport.summary(completed, detail: detail, log: log))
        // said, then the host's module cache template finished if the integration started one
        await application.settle()
        if completed.result?.isPassing != true { throw ExitCode.failure }
    }

    /// Pull request `number` as the forge last described it to the store; unknown ones are
    /// fetched by the forge's ref and, since nothing says whose code they are, get no secrets.
    static func pullRequest(_ number: Int, of bot: Bot, in store: any IntegrationRecords) async throws(StoreError) -> PullRequest {
        if let known = try await store.pullRequests(bot: bot.name, includeClosed: true).first(where: { $0.pullRequest.number == number }) {
            return known.pullRequest
        }
        return PullRequest(
            number: number, title: "", author: "", url: nil, head: "pull/\(number)", base: bot.repository.branch, ref: bot.forgeKind.pullRef(number),
            fork: true)
    }
}

/// `kiln run`'s progress: on a terminal the running step with its elapsed time, updated in place;
/// otherwise a line per finished step.
actor ProgressDisplay {
    nonisolated let live: Bool
    private var step: IntegrationStep?
    private var started = MonotonicClock.system.now

    init(live: Bool) {
        self.live = live
    }

    func handle(_ progress: IntegrationSequencer.Progress) {
        switch progress {
        case .step(let next):
            step = next
            started = MonotonicClock.system.now
            tick()
        case .stepEnded(let ended, let seconds):
            if live { FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8)) }
            Console.out("  \(ended.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \(DurationText.tenths(seconds))")
            if step == ended { step = nil }
            tick()
        }
    }

    func tick() {
        guard live, let step else { return }
        let elapsed = MonotonicClock.system.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let line = "  \(step.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \(DurationText.compact(seconds)) …"
        FileHandle.standardOutput.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    func finish() {
        if live { FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8)) }
    }
}
