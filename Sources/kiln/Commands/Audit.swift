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
import KilnStore

struct Audit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Print the audit trail: sign-ins, tokens made and revoked, queue and cancel.",
        discussion: """
            One event a line, oldest first: the time (UTC), what happened, the token's name, the \
            address it came from (none: this machine's command line), the bot and integration, and \
            what else is known. Failed sign-ins and addresses refused for too many of them are \
            there too. Events are kept for audit.retention (default 90d).

            Examples:
              kiln audit
              kiln audit --since 24h
              kiln audit --since 2026-11-20
            """
    )

    @OptionGroup var location: LocationOptions

    @Option(
        help: ArgumentHelp(
            "Only events from then on: a date (2026-11-20, UTC), a time (2026-11-20T08:00:00Z) or a duration ago (90m, 24h, 7d).",
            valueName: "date"))
    var since: String?

    /// The most events printed: the newest, when there are more.
    static let limit = 100_000

    func validate() throws {
        if let since, Self.start(since, now: WallClock.system.now) == nil {
            throw ValidationError("--since must be a date (2026-11-20), a time (2026-11-20T08:00:00Z) or a duration such as 24h, not '\(since)'")
        }
    }

    func run() async throws {
        let from = since.flatMap { Self.start($0, now: WallClock.system.now) }
        let events = try await Token.withStore(location) { store in try await store.auditEvents(since: from, limit: Self.limit) }
        guard !events.isEmpty else {
            Console.out(from == nil ? "the audit trail is empty" : "nothing in the audit trail since \(from.map(Self.time) ?? "")")
            return
        }
        for event in events { Console.out(Self.line(event)) }
    }

    /// `2026-11-27T07:50:01Z  sign-in  token alice  from 10.0.0.7`, and the bot, number and detail when known.
    static func line(_ event: AuditEvent) -> String {
        var fields = [time(event.at), event.action.rawValue, event.token.map { "token \($0)" } ?? "no token"]
        fields.append(event.address.map { "from \($0)" } ?? "command line")
        if let bot = event.bot { fields.append(event.number.map { "\(bot) #\($0)" } ?? bot) }
        if let detail = event.detail { fields.append(detail) }
        return fields.joined(separator: "  ")
    }

    static func time(_ date: Date) -> String { date.formatted(.iso8601) }

    /// `text` as the moment it names: a date or time in ISO 8601, or a duration before `now`.
    static func start(_ text: String, now: Date) -> Date? {
        if let duration = Duration.parsing(text) { return now.addingTimeInterval(-duration.seconds) }
        if let time = try? Date(text, strategy: .iso8601) { return time }
        return try? Date(text, strategy: Date.ISO8601FormatStyle().year().month().day())
    }
}
