import ArgumentParser
import Foundation
import Hummingbird
import KilnCore
import KilnServer
import KilnStore
import KilnWeb
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server.",
        discussion: """
            Loads the bots and serves HTTP until SIGINT or SIGTERM.

            This version opens the data directory's store (ending integrations a crashed server left \
            running), records and reports the bots, and answers GET /health; scheduling, running \
            integrations and the status pages are not built yet.

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
        var config: ServerConfig
        do {
            config = try location.serverConfig()
        } catch {
            throw fail(with: error)
        }
        if let listen, let address = ListenAddress(parsing: listen) { config.listen = address }
        let level = Logger.Level(rawValue: logLevel) ?? .info
        var logger = Logger(label: "kiln")
        logger.logLevel = level

        let store: SQLiteStore
        do {
            store = try SQLiteStore.open(dataDirectory: config.data)
            for integration in try store.recoverAbandoned(isAlive: ProcessOwner.isAlive, now: Date()) {
                logger.warning(
                    "integration ended as internal-error",
                    metadata: ["bot": "\(integration.bot)", "number": "\(integration.number)", "reason": "\(integration.reason ?? "")"])
            }
        } catch {
            Console.error("error: \(error)")
            throw ExitCode.failure
        }
        let registry = BotRegistry(directory: config.bots, store: store, logger: logger)
        let catalog: BotCatalog
        do {
            catalog = try await registry.reload()
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
        let settings = ServerSettings(config: config, logLevel: level)
        let host = config.listen.host
        let application = buildApplication(settings: settings, registry: registry, logger: logger) { port in
            Console.out("kiln serving \(catalog.bots.count) bot\(catalog.bots.count == 1 ? "" : "s") on http://\(host):\(port)")
        }
        try await application.runService()
    }
}
