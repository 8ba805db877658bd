import Foundation
import Hummingbird
import KilnCore
import KilnServer
import KilnStore
import KilnTestSupport
import KilnWeb
import Logging
import ServiceLifecycle
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real HTTP application on a loopback port, over a real store in a temp dir, with bot files
/// written by the test. No scheduler runs, so what the tests queue stays queued for them to see.
final class WebFixture: Sendable {
    let directory: TemporaryDirectory
    let store: SQLiteStore
    let registry: BotRegistry
    let port: Int
    private let services: ServiceGroup
    private let task: Task<Void, any Error>

    static let secret = "It's a Secret to Everybody"

    /// Starts a server with `bots` (file name → contents) and, optionally, the server-wide secret.
    static func start(bots: [String: String], secret: String? = WebFixture.secret) async throws -> WebFixture {
        let directory = try TemporaryDirectory("kiln-web")
        for (name, text) in bots { try directory.write("Bots/\(name).yml", text) }
        try FileManager.default.createDirectory(atPath: directory.url("Bots"), withIntermediateDirectories: true)
        let store = try SQLiteStore.open(dataDirectory: directory.url("data"))
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let registry = BotRegistry(directory: directory.url("Bots"), store: store, logger: logger)
        try await registry.reload()
        var config = ServerConfig(listen: ListenAddress(host: "127.0.0.1", port: 0))
        config.bots = directory.url("Bots")
        config.data = directory.url("data")
        let web = WebDependencies(
            store: store, registry: registry, scheduler: nil, assets: try WebAssets.load(), webhookSecret: secret.map { Array($0.utf8) })
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = buildApplication(settings: ServerSettings(config: config), web: web, logger: logger) { continuation.yield($0) }
        let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let task = Task { try await services.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw FixtureError.noPort }
        return WebFixture(directory: directory, store: store, registry: registry, port: port, services: services, task: task)
    }

    private init(
        directory: TemporaryDirectory, store: SQLiteStore, registry: BotRegistry, port: Int, services: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.directory = directory
        self.store = store
        self.registry = registry
        self.port = port
        self.services = services
        self.task = task
    }

    func stop() async {
        await services.triggerGracefulShutdown()
        _ = await task.result
    }

    enum FixtureError: Error { case noPort, notHTTP }

    struct Reply: Sendable {
        var status: Int
        var contentType: String
        var body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> Any { try JSONSerialization.jsonObject(with: body) }
    }

    func get(_ path: String) async throws -> Reply {
        try await send(URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))))
    }

    func post(_ path: String, body: Data, headers: [String: String]) async throws -> Reply {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)\(path)")))
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> Reply {
        let (body, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw FixtureError.notHTTP }
        return Reply(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type") ?? "", body: body)
    }

    /// Records a completed integration of `bot` with everything the pages show.
    @discardableResult
    func integrate(_ bot: String, result: IntegrationResult, outcome: IntegrationOutcome? = nil, log: String = "", commit: String = "abc1234")
        throws -> Integration
    {
        let queued = try store.enqueue(QueueRequest(bot: bot, cause: .manual, commit: commit, branch: "main"), now: Date())
        let claimed = try #require(try store.claim(queued.integration.id, owner: "test", now: Date()))
        if let path = store.logPath(bot: bot, number: claimed.number) {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try log.write(toFile: path, atomically: true, encoding: .utf8)
        }
        try store.advance(claimed.id, to: .building, now: Date())
        return try store.complete(claimed.id, outcome: outcome ?? IntegrationOutcome(result: result), now: Date().addingTimeInterval(3))
    }
}

/// Bot files used across the web tests.
enum Bots {
    static let app = """
        repository:
          url: https://github.com/example/app.git
        schedule:
          poll: 0
        """
    static func following(_ url: String, branch: String = "main", secretFile: String? = nil) -> String {
        var text = "repository:\n  url: \(url)\n  branch: \(branch)\nschedule:\n  poll: 0\n"
        if let secretFile { text += "webhook-secret-file: \(secretFile)\n" }
        return text
    }
}
