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
import KilnWeb

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Make, list and revoke access tokens for the web pages and the API.",
        discussion: """
            A token is shown once, when it is made; the store keeps only its hash. Its role says \
            what its holder may do: viewer reads, member also queues and cancels integrations, \
            admin also manages tokens. With --bot, the private bots it may see are only those.

            Examples:
              kiln token add alice --role member
              kiln token add dashboard --role viewer --bot app --bot lib
              kiln token list
              kiln token revoke alice
            """,
        subcommands: [Add.self, List.self, Revoke.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a token and print it, alone on the last line (it is never shown again).")

        @OptionGroup var location: LocationOptions

        @Argument(help: ArgumentHelp("The token's name: letters, digits, '-', '_' and '.'.", valueName: "name"))
        var name: String

        @Option(help: ArgumentHelp("viewer, member or admin.", valueName: "role"))
        var role: String

        @Option(name: .customLong("bot"), help: ArgumentHelp("A private bot it may see (repeat for more; default: every bot).", valueName: "bot"))
        var bots: [String] = []

        func validate() throws {
            guard AccessToken.isValidName(name) else {
                throw ValidationError("'\(name)' is not a token name: use letters, digits, '-', '_' and '.' (at most 64)")
            }
            guard AccessRole(rawValue: role) != nil else { throw ValidationError("--role must be viewer, member or admin, not '\(role)'") }
            for bot in bots where !Bot.isValidName(bot) { throw ValidationError("'\(bot)' is not a bot name") }
        }

        func run() async throws {
            let token = AccessToken(name: name, role: AccessRole(rawValue: role) ?? .viewer, bots: bots.sorted(), createdAt: WallClock.system.now)
            let value = TokenSecret.make()
            let scope = bots.isEmpty ? "every bot" : bots.sorted().joined(separator: ", ")
            try await Token.withStore(location) { store in
                try await store.addToken(token, hash: TokenSecret.hash(value))
                try await store.recordAudit(Token.audit(.tokenAdded, name, detail: "\(token.role.rawValue), \(scope)"))
            }
            Console.error("made the token '\(name)' (\(token.role.rawValue), \(scope)); it is shown once, here:")
            Console.out(value)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tokens: name, role, bots, made, last used (never a token).")

        @OptionGroup var location: LocationOptions

        func run() async throws {
            let tokens = try await Token.withStore(location) { store in try await store.tokens() }
            guard !tokens.isEmpty else {
                Console.out("no tokens (make one with kiln token add NAME --role ROLE)")
                return
            }
            let iso = { (date: Date) in date.formatted(.iso8601) }
            for token in tokens {
                let bots = token.bots.isEmpty ? "every bot" : token.bots.joined(separator: ",")
                Console.out(
                    "\(token.name)\t\(token.role.rawValue)\t\(bots)\tmade \(iso(token.createdAt))\tlast used \(token.lastUsedAt.map(iso) ?? "never")")
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token: its next request is refused.")

        @OptionGroup var location: LocationOptions

        @Argument(help: ArgumentHelp("The token's name.", valueName: "name"))
        var name: String

        func run() async throws {
            let revoked = try await Token.withStore(location) { store in
                guard try await store.revokeToken(named: name) else { return false }
                try await store.recordAudit(Token.audit(.tokenRevoked, name))
                return true
            }
            guard revoked else {
                Console.error("error: there is no token '\(name)' (kiln token list shows them)")
                throw ExitCode.failure
            }
            Console.out("revoked the token '\(name)'")
        }
    }

    /// What the audit trail keeps of a token made or revoked here: on the command line (no
    /// address), by this machine's user.
    static func audit(_ action: AuditEvent.Action, _ name: String, detail: String? = nil) -> AuditEvent {
        audit(action, name, bot: nil, number: nil, detail: [detail])
    }

    /// What the audit trail keeps of something done here to a token (`name`) or an integration
    /// (`bot`, `number`): on the command line (no address), by this machine's user.
    static func audit(_ action: AuditEvent.Action, _ name: String?, bot: String?, number: Int?, detail: [String?]) -> AuditEvent {
        let user = ProcessInfo.processInfo.environment["USER"] ?? ProcessInfo.processInfo.environment["LOGNAME"] ?? "uid \(getuid())"
        return AuditEvent(
            at: WallClock.system.now, action: action, token: name, bot: bot, number: number,
            detail: (detail.compactMap { $0 } + ["by \(user) on the command line"]).joined(separator: "; ")
        )
    }

    /// Runs `body` with the store of the server at `location`; a failure is one line and exit 1.
    static func withStore<T: Sendable>(_ location: LocationOptions, _ body: (any Store) async throws -> T) async throws -> T {
        let config: ServerConfig
        do {
            config = try location.serverConfig()
        } catch {
            throw fail(with: error)
        }
        do {
            return try await body(try await StoreLocation.open(config))
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
    }
}
