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
import KilnServer
import KilnStore

struct Trigger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trigger",
        // Named for `Kiln.main`'s short path, which parses `kiln trigger` as a root command:
        // usage and errors then read "kiln trigger", and ArgumentParser skips looking for a
        // completion-script request (two more parses, ~1.5 ms of the command's 17).
        _superCommandName: "kiln",
        abstract: "Queue an integration of a bot.",
        discussion: """
            Queues an integration (cause: manual) in the data directory's store, for the server running \
            on it. If the bot already has one queued, the trigger joins it instead of queueing another.

            With --rerun N, queues integration N's commit again (cause: rerun), with its cells; with \
            --failed too, only its failed tests, and of a matrix only its failed cells.

            Examples:
              kiln trigger app
              kiln trigger app --rerun 41
              kiln trigger app --rerun 41 --failed
              kiln trigger app --data /var/lib/kiln --bots /etc/kiln/Bots
            """
    )

    @OptionGroup var location: LocationOptions

    @Argument(help: ArgumentHelp("The bot to integrate.", valueName: "bot"))
    var bot: String

    @Option(help: ArgumentHelp("Run integration N's commit again.", valueName: "N"))
    var rerun: Int?

    @Flag(help: "With --rerun: only the integration's failed tests, and failed cells.")
    var failed = false

    func validate() throws {
        if failed, rerun == nil { throw ValidationError("--failed goes with --rerun N: the failed tests of which integration?") }
    }

    func run() async throws {
        if let rerun {
            try await Self.queueRerun(bot, number: rerun, only: failed ? .failed : .all, at: location)
        } else {
            try await Self.queue(bot, at: location)
        }
    }

    /// Queues a re-run of `bot`'s integration `number` in the store (the server hears it
    /// change), recorded in the audit trail as the command line's.
    static func queueRerun(_ bot: String, number: Int, only: Rerun.Scope, at location: LocationOptions) async throws {
        try await Token.withStore(location) { store in
            guard number > 0, let original = try await store.integration(bot: bot, number: number) else {
                Console.error("error: bot '\(bot)' has no integration #\(number) (kiln status lists its integrations)")
                throw ExitCode.failure
            }
            let request: QueueRequest
            do throws(Rerun.Refusal) {
                request = try Rerun.request(original, only: only)
            } catch {
                Console.error("error: \(error.sentence)")
                throw ExitCode.failure
            }
            let outcome = try await store.enqueue(request, now: WallClock.system.now)
            let queued = outcome.integration.number
            let what = request.rerunOf?.sentence ?? "re-run of #\(number)"
            try await store.recordAudit(
                Token.audit(.queued, nil, bot: bot, number: queued, detail: [what, outcome.coalesced ? "joined the one queued" : nil]))
            Console.out(outcome.coalesced ? "\(bot) #\(queued) (\(what)) was already queued; this joins it" : "queued \(bot) #\(queued), \(what)")
        }
    }

    /// Queues an integration of `bot` in the store of the server at `location`: through the
    /// server's trigger socket when one runs on the data directory (it queues with its own store
    /// connection, and this command reads neither the bot's file nor the store), else in the
    /// store, which the server hears change.
    static func queue(_ bot: String, at location: some ServerLocation) async throws {
        if queuedByServer(bot, at: location) { return }
        try await queueInStore(bot, at: location)
    }

    /// Asks the server of `location`'s data directory to queue `bot`, and says what it answered;
    /// false when no server answered `queued` or `joined`. Synchronous, so that `Kiln.main` asks
    /// before its first suspension: awaiting anything first moved the command to a thread of the
    /// concurrency pool, which it started for this (0.35 ms).
    static func queuedByServer(_ bot: String, at location: some ServerLocation) -> Bool {
        // The server's bots and store settle everything else: kiln.yml is read for its data
        // directory alone, and not at all when it names none.
        let socket: String
        if let unparsed = location.triggerSocketUnparsed {
            socket = unparsed
        } else if let config = try? location.serverConfig() {
            socket = config.dataDirectory.triggerSocket
        } else {
            return false  // the store's path says what is wrong with the config
        }
        switch TriggerSocket.ask(bot, socket: socket) {
        case .queued(let number): Console.out(queued(bot, number, joined: false))
        case .joined(let number): Console.out(queued(bot, number, joined: true))
        case .refused, nil: return false
        }
        return true
    }

    /// Queues `bot` in the store itself, for when no server took the request.
    static func queueInStore(_ bot: String, at location: some ServerLocation) async throws {
        let config = try location.loadServerConfig()
        let found = try location.loadOneBot(named: bot, config: config)
        do {
            let store = try await StoreLocation.open(config)
            let outcome = try await store.enqueue(QueueRequest(found, cause: .manual), now: WallClock.system.now)
            Console.out(queued(found.name, outcome.integration.number, joined: outcome.coalesced))
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
    }

    private static func queued(_ bot: String, _ number: Int, joined: Bool) -> String {
        joined ? "\(bot) #\(number) was already queued; the trigger joins it" : "queued \(bot) #\(number)"
    }
}
