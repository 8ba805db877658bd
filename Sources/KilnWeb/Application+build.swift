import Foundation
import Hummingbird
import KilnCore
import KilnGit
import KilnMail
import KilnServer
import KilnStore
import Logging
import Prometheus
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

/// Why a server could not be built.
public enum ServerSetupError: Error, Sendable, CustomStringConvertible {
    case store(StoreError)
    case assets(WebAssetsError)
    case webhookSecret(path: String)
    case mail(String)

    public var description: String {
        switch self {
        case .store(let error): "\(error)"
        case .assets(let error): "\(error)"
        case .webhookSecret(let path):
            "cannot read the webhook secret file \(path) (webhooks.secret-file): create it with the secret, or remove the key"
        case .mail(let reason): reason
        }
    }
}

/// Builds the whole server from its settings: the composition root that `kiln serve` and the
/// tests both call. Opens the store (ending what a crashed server left running), and wires the
/// bot registry, the mirrors, the executor pool and the HTTP application together.
public func buildServer(
    settings: ServerSettings, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) throws(ServerSetupError) -> KilnServices {
    let config = settings.config
    let assets: WebAssets
    do {
        assets = try WebAssets.load(environment: settings.environment)
    } catch {
        throw .assets(error)
    }
    var secret: [UInt8]?
    if let path = config.webhookSecretFile {
        guard let read = WebhookController.readSecret(path) else { throw .webhookSecret(path: path) }
        secret = read
    }
    let store: SQLiteStore
    let recovered: [Integration]
    do {
        store = try SQLiteStore.open(dataDirectory: config.data)
        recovered = try store.recoverAbandoned(isAlive: ProcessOwner.isAlive, now: Date())
    } catch {
        throw .store(error)
    }
    let registry = BotRegistry(directory: config.bots, store: store, logger: logger)
    let executor = IntegrationExecutor(
        store: store, mirrors: Mirrors(directory: config.data + "/mirrors", sshKeyFile: config.sshKeyFile), dataDirectory: config.data,
        serverEnvironment: settings.environment, logger: logger)
    for integration in recovered { executor.killLeftovers(of: integration) }
    let scheduler = Scheduler(
        registry: registry, store: store, executor: executor,
        settings: Scheduler.Settings(
            executors: config.executors, timeZone: config.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current,
            retention: config.retention, databasePath: store.path),
        logger: logger)
    var delivery: Mailer.Delivery?
    if let smtp = config.smtp {
        do {
            let notifier = Notifier(
                store: store, templates: try MailTemplates.load(environment: settings.environment), from: smtp.from,
                publicURL: config.publicURL ?? "http://\(config.listen)", reports: config.reports,
                timeZone: config.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current)
            delivery = Mailer.Delivery(notifier: notifier, client: try SMTPClient(settings: smtp), sender: smtp.from.address)
        } catch {
            throw .mail("\(error)")
        }
    }
    let mailer = Mailer(store: store, registry: registry, delivery: delivery, logger: logger)
    let web = WebDependencies(
        store: store, registry: registry, scheduler: scheduler, assets: assets, webhookSecret: secret)
    let application = buildApplication(settings: settings, web: web, logger: logger, onListening: onListening)
    return KilnServices(
        store: store, registry: registry, scheduler: scheduler, services: [application, scheduler, mailer], recovered: recovered)
}

/// What the HTTP application reads and writes.
public struct WebDependencies: Sendable {
    public var store: SQLiteStore
    public var registry: BotRegistry
    /// Told of heads learnt from webhooks; nil when no scheduler runs beside the application.
    public var scheduler: Scheduler?
    public var assets: WebAssets
    public var webhookSecret: [UInt8]?

    public init(
        store: SQLiteStore, registry: BotRegistry, scheduler: Scheduler?, assets: WebAssets, webhookSecret: [UInt8]?
    ) {
        self.store = store
        self.registry = registry
        self.scheduler = scheduler
        self.assets = assets
        self.webhookSecret = webhookSecret
    }
}

/// The HTTP application alone: every route of DESIGN.md and the listener.
public func buildApplication(
    settings: ServerSettings,
    web: WebDependencies,
    logger: Logger,
    onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let metrics = PrometheusCollectorRegistry()
    let cache = ResponseCache(databasePath: web.store.path)
    let router = Router()
    router.add(middleware: HTTPMetricsMiddleware(registry: metrics))
    HealthController().addRoutes(to: router)
    let store = web.store
    let logPath: @Sendable (String, Int) -> String? = { store.logPath(bot: $0, number: $1) }
    PagesController(store: store, assets: web.assets, cache: cache, logPath: logPath).addRoutes(to: router)
    LogController(store: store, logPath: logPath).addRoutes(to: router)
    APIController(store: web.store, cache: cache).addRoutes(to: router)
    WebhookController(store: web.store, registry: web.registry, scheduler: web.scheduler, secret: web.webhookSecret, logger: logger)
        .addRoutes(to: router)
    MetricsController(store: web.store, registry: metrics).addRoutes(to: router)
    return Application(
        router: router,
        configuration: .init(address: .hostname(settings.config.listen.host, port: settings.config.listen.port), serverName: "kiln"),
        onServerRunning: { channel in await onListening(channel.localAddress?.port ?? settings.config.listen.port) },
        logger: logger
    )
}
