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
import KilnCore

@main
struct Kiln: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiln",
        abstract: "A self-hosted CI server for Swift packages.",
        discussion: """
            Bots are YAML files in a bots directory (default: Bots/); each watches a git branch and \
            integrates it: checkout, swift build, swift test.

            Examples:
              kiln validate               # check every bot file in Bots/
              kiln validate Bots/app.yml  # check one file
              kiln serve                  # run the server on 127.0.0.1:8080
            """,
        version: KilnVersion.current,
        subcommands: [
            Serve.self, Run.self, Status.self, Trigger.self, Approve.self, Validate.self, Migrate.self, Token.self, Audit.self, Backup.self,
        ]
    )

    /// `kiln --version`, `kiln run BOT`, `kiln status`, and `kiln trigger BOT`, which git hooks
    /// and scripts run, take a short path: alone, each needs no parsing at all (ArgumentParser
    /// reflects every command's properties, a fifth of `kiln trigger`'s time); `trigger` with
    /// options is parsed as a command of its own. Help, completions, mistakes and every other
    /// command take ArgumentParser's path through `Kiln`, which words them as always.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // what ArgumentParser prints for it, without reflecting every command first
        if arguments == ["--version"] {
            Console.out(KilnVersion.current)
            return
        }
        if arguments.count == 2, arguments[0] == "run", !arguments[1].hasPrefix("-"), arguments[1] != "help" {
            do {
                try await Run.integrate(arguments[1], pull: nil, cell: nil, at: DefaultLocation())
            } catch {
                exit(withError: error)
            }
            return
        }
        if arguments == ["status"] || arguments == ["status", "--json"] {
            do {
                try await Status.show(at: DefaultLocation(), json: arguments.count == 2)
            } catch {
                exit(withError: error)
            }
            return
        }
        let asksForHelp = arguments.contains { ["-h", "--help", "help"].contains($0) }
        guard arguments.first == "trigger", !asksForHelp else {
            await mainThroughRoot(arguments)
            return
        }
        do {
            if arguments.count == 2, let bot = arguments.last, !bot.hasPrefix("-") {
                if Trigger.queuedByServer(bot, at: DefaultLocation()) { return }
                try await Trigger.queueInStore(bot, at: DefaultLocation())
            } else if let trigger = try? Trigger.parseAsRoot(Array(arguments.dropFirst())) as? Trigger {
                try await trigger.run()
            } else {
                await mainThroughRoot(arguments)
            }
        } catch {
            exit(withError: error)
        }
    }

    /// ArgumentParser's own `main`, from the root command.
    private static func mainThroughRoot(_ arguments: [String]) async {
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
