import Foundation
import Hummingbird
import KilnCore
import KilnServer
import KilnTestSupport
import KilnWeb
import Logging
import ServiceLifecycle
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("HTTP")
struct HealthTests {
    @Test("GET /health answers 200 ok over loopback; unknown routes 404")
    func health() async throws {
        let directory = try TemporaryDirectory()
        var config = ServerConfig(listen: ListenAddress(host: "127.0.0.1", port: 0))
        config.bots = directory.url("Bots")
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = buildApplication(
            settings: ServerSettings(config: config), registry: BotRegistry(directory: config.bots, logger: logger), logger: logger
        ) { port in continuation.yield(port) }
        let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let (body, response) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/health")))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self) == "ok")
            let (_, missing) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(port)/nothing-here")))
            #expect((missing as? HTTPURLResponse)?.statusCode == 404)
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
        }
    }
}
