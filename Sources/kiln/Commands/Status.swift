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
import KilnPresentation
import KilnServer
import KilnStore
import KilnWeb

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the bots, their last results, and running and queued integrations.",
        discussion: """
            Reads the data directory's store, so it works while the server runs. With --json, prints \
            exactly what GET /api/bots returns. Without, also the hosts (when there are several, or \
            one is gone), a running integration whose host or process is gone, a forge that refuses \
            the bot's commit statuses (with its answer), and the mail outbox: mails queued (with \
            their attempts and last error) and failed.

            Examples:
              kiln status
              kiln status --json | jq '.[] | select(.status == "broken") | .problems'
            """
    )

    @OptionGroup var location: LocationOptions

    @Flag(help: "Print the JSON of GET /api/bots.")
    var json = false

    func run() async throws {
        try await Self.show(at: location, json: json)
    }

    /// Prints the status of the server at `location` (`Kiln.main` calls it without parsing, for
    /// `kiln status` and `kiln status --json` alone).
    static func show(at location: some ServerLocation, json: Bool) async throws {
        let config = try location.loadServerConfig()
        let bots: [API.Bot]
        let outbox: Outbox
        let hosts: [HostRecord]
        let statusProblems: [StatusProblem]
        let reviewProblems: [StatusProblem]
        var running: [String: Integration] = [:]
        do {
            let store = try await StoreLocation.open(config)
            let overviews = try await store.botOverviews()
            bots = overviews.filter(\.loaded).map(API.Bot.init)
            for overview in overviews { running[overview.state.name] = overview.running.first }
            outbox = try await store.outbox(limit: 10)
            hosts = try await store.hosts()
            statusProblems = try await store.statusProblems()
            reviewProblems = try await store.reviewProblems()
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        if json {
            do {
                Console.out(String(decoding: try API.encode(bots), as: UTF8.self))
            } catch {
                Console.error("error: \(error)")
                throw ExitCode.failure
            }
            return
        }
        let now = WallClock.system.now
        if let sentence = await SandboxAvailability.probe(config).sentence { Console.out("sandbox: \(sentence)") }
        if let weakness = LimitsAvailability.weakness() { Console.out(weakness) }
        if bots.isEmpty {
            Console.out("no bots yet in \(config.data) (kiln serve records them when it loads \(config.bots))")
        }
        let width = bots.map(\.name.count).max() ?? 3
        for bot in bots {
            var line =
                bot.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + bot.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            if let last = bot.last {
                line += "  last #\(last.number) \(last.result?.rawValue ?? "?")"
                if let ended = last.endedAt { line += " \(Ago.text(ended, now: now))" }
                if let duration = last.duration { line += " in \(DurationText.compact(duration))" }
            } else {
                line += "  never integrated"
            }
            if let running = running[bot.name] {
                line += "; running #\(running.number) (\(running.step.rawValue))"
                if let gone = Self.gone(running, hosts: hosts, thisHost: config.host, now: now) { line += " — \(gone)" }
            }
            if !bot.queued.isEmpty { line += "; queued " + bot.queued.map { "#\($0.number)" }.joined(separator: ", ") }
            Console.out(line)
            for problem in bot.problems { Console.out("  \(problem)") }
            if let refused = statusProblems.first(where: { $0.bot == bot.name }) {
                let code = refused.responseCode.map { "HTTP \($0)" } ?? "no answer"
                Console.out("  commit statuses refused \(Ago.text(refused.at, now: now)) (\(code)): \(refused.message)")
            }
            if let refused = reviewProblems.first(where: { $0.bot == bot.name }) {
                let code = refused.responseCode.map { "HTTP \($0)" } ?? "no answer"
                Console.out("  pull request reviews refused \(Ago.text(refused.at, now: now)) (\(code)): \(refused.message)")
            }
        }
        if hosts.count > 1 || hosts.contains(where: \.gone) {
            Console.out("hosts:")
            for host in hosts {
                let heard = Ago.text(host.lastHeard, now: now)
                Console.out(
                    host.gone
                        ? "  \(host.name)  gone, last heard \(heard)"
                        : "  \(host.name)  \(host.busy) of \(host.executors) busy, heard \(heard), \(host.version)")
            }
        }
        Self.printOutbox(outbox, now: now)
    }

    /// Why a running integration is no longer really running, before any server has ended it: its
    /// process on this host is gone (`SIGKILL` of `kiln run`), or its host is silent past its lease.
    static func gone(_ integration: Integration, hosts: [HostRecord], thisHost: String, now: Date) -> String? {
        if let owner = integration.owner, ProcessOwner.isGone(owner, onHost: thisHost) {
            return "its process is gone; a server ends it when it starts"
        }
        if let name = integration.host, let host = hosts.first(where: { $0.name == name }), host.gone {
            return "its host \(name) is gone (last heard \(Ago.text(host.lastHeard, now: now))); another host ends it"
        }
        return nil
    }

    /// `mail: 2 queued, 1 failed, 140 sent`, then each undelivered mail with its last error.
    static func printOutbox(_ outbox: Outbox, now: Date) {
        guard outbox.queued + outbox.failed + outbox.sent > 0 else { return }
        Console.out("mail: \(outbox.queued) queued, \(outbox.failed) failed, \(outbox.sent) sent")
        for mail in outbox.undelivered {
            var line = "  \(mail.state) \"\(mail.subject)\" to \(mail.recipients.joined(separator: ", "))"
            if mail.state == .queued, mail.attempts > 0 {
                line +=
                    ", \(mail.attempts) attempt\(mail.attempts == 1 ? "" : "s"), next in \(DurationText.compact(mail.nextAttemptAt.timeIntervalSince(now)))"
            }
            if let error = mail.lastError { line += ": \(error)" }
            Console.out(line)
        }
    }

}
