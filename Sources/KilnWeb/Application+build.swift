import Hummingbird
import KilnCore
import KilnServer
import Logging

/// The server's settings once the config file and the command line have been combined.
public struct ServerSettings: Sendable {
    public var config: ServerConfig
    public var logLevel: Logger.Level

    public init(config: ServerConfig, logLevel: Logger.Level = .info) {
        self.config = config
        self.logLevel = logLevel
    }
}

/// Builds the whole server from its settings: the composition root that `kiln serve` and the
/// tests both call.
/// `onListening` receives the port actually bound (useful with port 0).
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
