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
import Logging
import UnixSignals

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server.",
        discussion: """
            Loads the bots and serves HTTP until SIGINT or SIGTERM.

            Opens the data directory's store (ending integrations a crashed server left running), \
            loads the bots and follows changes to their files, polls on-commit bots' branches, queues \
            periodic integrations, runs queued integrations (also those of kiln trigger) on the \
            configured number of executors, and answers GET /health. SIGTERM or SIGINT cancels running \
            integrations, records them, and exits.

            Examples:
              kiln serve
              kiln serve --listen 0.0.0.0:8080 --bots /srv/kiln/Bots --data /var/lib/kiln
            """
    )

    @OptionGroup var location: LocationOptions

    @Option(help: ArgumentHelp("Address to listen on (default: the config's 'listen', else 127.0.0.1:8080).", valueName: "host:port"))
    var listen: String?

    @Option(help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"

    func validate() throws {
        if let listen, ListenAddress(parsing: listen) == nil {
            throw ValidationError("--listen must be HOST:PORT such as 127.0.0.1:8080, not '\(listen)'")
        }
        if Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        MallocArenas.limit()
        var config = try location.loadServerConfig()
        if let listen, let address = ListenAddress(parsing: listen) { config.listen = address }
        let level = Logger.Level(rawValue: logLevel) ?? .info
        var logger = Logger(label: "kiln")
        logger.logLevel = level

        let settings = ServerSettings(config: config, logLevel: level)
        let host = config.listen.host
        let application: KilnApplication
        do {
            application = try await KilnApplication.build(
                settings: settings,
                role: .server { port in Console.out("kiln serving on http://\(host):\(port)") }, logger: logger)
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        for integration in application.recovered {
            Console.out("\(integration.bot) #\(integration.number) ended as internal-error: \(integration.reason?.sentence ?? "")")
        }
        let catalog: BotCatalog
        do {
            catalog = try await application.loadBots()
        } catch {
            throw fail(with: error)
        }
        for entry in catalog.bots {
            let bot = entry.bot
            Console.out("bot \(bot.name): \(bot.repository.url.redacted) \(bot.repository.branch) (\(entry.file))")
        }
        for broken in catalog.broken {
            Console.out("bot \(broken.name): broken (\(broken.file))")
            for problem in broken.problems { Console.out("  \(problem)") }
        }
        // The application handles the first SIGTERM or SIGINT gracefully; a second one exits at once.
        do {
            try await serve(application)
        } catch let error as ServerSetupError {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        Console.out("kiln stopped")
    }

    private func serve(_ application: KilnApplication) async throws {
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await application.run(gracefulShutdownSignals: [.sigterm, .sigint]) }
            tasks.addTask {
                for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) { break }
                // Stopping: a second signal, or a stop longer than the limit, ends it at once.
                let why = await withTaskGroup(of: String?.self) { limits in
                    limits.addTask {
                        for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) { return "a second signal" }
                        return nil
                    }
                    limits.addTask {
                        let limit = application.settings.config.stopLimit
                        guard await MonotonicClock.system.sleep(for: limit) else { return nil }
                        return "the stop took longer than \(limit) (stop-limit)"
                    }
                    defer { limits.cancelAll() }
                    return await limits.next() ?? nil
                }
                // Canceled: the application ended first.
                guard let why, !Task.isCancelled else { return }
                let waited = await application.ledger.stillRunning
                Console.error("kiln: \(why): exiting now; still stopping: \(waited.isEmpty ? "nothing" : waited.joined(separator: ", "))")
                Foundation.exit(1)
            }
            try await tasks.next()
            tasks.cancelAll()
        }
    }
}
