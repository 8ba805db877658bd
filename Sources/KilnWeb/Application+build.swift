import Foundation
import Hummingbird
import KilnCore
import KilnGit
import KilnServer
import KilnStore
import Logging
import ServiceLifecycle

/// The server's settings once the config file and the command line have been combined.
public struct ServerSettings: Sendable {
    public var config: ServerConfig
    public var logLevel: Logger.Level
    /// Where secrets and PATH for builds come from.
    public var environment: [String: String]

    public init(config: ServerConfig, logLevel: Logger.Level = .info, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.config = config
        self.logLevel = logLevel
        self.environment = environment
    }
}

/// The running parts of a server, ready for a `ServiceGroup`.
public struct KilnServices: Sendable {
    public var store: SQLiteStore
    public var registry: BotRegistry
    public var scheduler: Scheduler
    public var services: [any Service]
    /// Integrations a previous, crashed server left running, now ended as internal-error.
    public var recovered: [Integration]
}

/// Builds the whole server from its settings: the composition root that `kiln serve` and the
/// tests both call. Opens the store (ending what a crashed server left running), and wires the
/// bot registry, the mirrors, the executor pool and the HTTP application together.
public func buildServer(
    settings: ServerSettings, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) throws(StoreError) -> KilnServices {
    let config = settings.config
    let store = try SQLiteStore.open(dataDirectory: config.data)
    let recovered = try store.recoverAbandoned(isAlive: ProcessOwner.isAlive, now: Date())
    let registry = BotRegistry(directory: config.bots, store: store, logger: logger)
    let executor = IntegrationExecutor(
        store: store, mirrors: Mirrors(directory: config.data + "/mirrors", sshKeyFile: config.sshKeyFile), dataDirectory: config.data,
        serverEnvironment: settings.environment, logger: logger)
    let scheduler = Scheduler(
        registry: registry, store: store, executor: executor,
        settings: Scheduler.Settings(
            executors: config.executors, timeZone: config.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current,
            retention: config.retention, databasePath: store.path),
        logger: logger)
    let application = buildApplication(settings: settings, registry: registry, logger: logger, onListening: onListening)
    return KilnServices(store: store, registry: registry, scheduler: scheduler, services: [application, scheduler], recovered: recovered)
}

/// The HTTP application alone (routes and listener).
public func buildApplication(
    settings: ServerSettings,
    registry: BotRegistry,
    logger: Logger,
    onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router()
    HealthController().addRoutes(to: router)
    return Application(
        router: router,
        configuration: .init(address: .hostname(settings.config.listen.host, port: settings.config.listen.port), serverName: "kiln"),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? settings.config.listen.port) },
        logger: logger
    )
}
