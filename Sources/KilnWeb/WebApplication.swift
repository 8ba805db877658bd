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

import Foundation
import Hummingbird
import KilnCore
import KilnStore
import Logging
import Prometheus
import ServiceLifecycle

/// What the HTTP application reads and writes.
public struct WebDependencies: Sendable {
    public var store: any Store
    /// The bots as last loaded (webhooks match pushes against them).
    public var bots: @Sendable () async -> [Bot]
    public var assets: WebAssets
    /// The server-wide webhook secret (`webhooks.secret-file`), if any.
    public var webhookSecret: [UInt8]?
    public var listen: ListenAddress
    /// This host's name (`host:`), the `host` label of `/metrics`.
    public var host: String
    /// What this host must tell everyone on the front page (bubblewrap cannot run here).
    public var notice: String?
    /// The time of day of pages ("3 minutes ago") and deliveries.
    public var clock: WallClock
    /// `access.anonymous`: what a request without a token may do.
    public var anonymous: AnonymousAccess = .read
    /// Whether people reach Kiln over https (`public-url`), so that the session cookie is Secure.
    public var secureCookies = false
    /// Where this host keeps the workspace snapshots it serves other hosts; nil: none.
    public var snapshots: DataDirectory?
    /// What `/health` judges besides the store.
    public var health = HealthSettings(dataDirectory: nil)
    /// Reads a file of a repository at a commit, for a failure's source lines and the source view.
    public var source: SourceReader = { _, _, _ in .unavailable("this host reads no repository") }

    public init(
        store: any Store, bots: @escaping @Sendable () async -> [Bot], assets: WebAssets, webhookSecret: [UInt8]?, listen: ListenAddress,
        host: String = ProcessInfo.processInfo.hostName, notice: String? = nil, clock: WallClock = .system
    ) {
        self.clock = clock
        self.host = host
        self.notice = notice
        self.store = store
        self.bots = bots
        self.assets = assets
        self.webhookSecret = webhookSecret
        self.listen = listen
    }
}

/// A file of a bot's repository as of a commit: what a failure's source lines and Kiln's source
/// view (`/bots/{bot}/integrations/{n}/source/…`) are read from.
public enum SourceFile: Sendable {
    case text(Data)
    /// The commit has no such file.
    case missing
    /// The file cannot be read here; why.
    case unavailable(String)
}

/// Reads `path` of `repository` as of `commit`.
public typealias SourceReader = @Sendable (_ repository: Repository, _ commit: String, _ path: String) async -> SourceFile

/// Every route, each behind the one access check (`AccessMiddleware`): a middleware wraps only
/// the routes added after it, so it comes first.
func webRouter(
    _ web: WebDependencies, cache: ResponseCache, health: HealthMonitor, metrics: PrometheusCollectorRegistry, logger: Logger
) -> Router<KilnRequestContext> {
    let router = Router(context: KilnRequestContext.self)
    let gate = AccessGate(store: web.store, anonymous: web.anonymous, cache: cache, clock: web.clock)
    router.add(middleware: HTTPMetricsMiddleware(registry: metrics))
    router.add(middleware: SecurityHeadersMiddleware(scriptHashes: web.assets.scriptHashes))
    router.add(middleware: ErrorPageMiddleware(assets: web.assets))
    router.add(middleware: StoreUnavailableMiddleware())
    router.add(middleware: AccessMiddleware(gate: gate))
    HealthController(monitor: health).addRoutes(to: router)
    SignInController(gate: gate, assets: web.assets, secure: web.secureCookies).addRoutes(to: router)
    AuditController(store: web.store, gate: gate, assets: web.assets).addRoutes(to: router)
    PagesController(store: web.store, assets: web.assets, cache: cache, notice: web.notice, clock: web.clock, bots: web.bots, source: web.source)
        .addRoutes(to: router)
    SourceController(store: web.store, assets: web.assets, bots: web.bots, source: web.source).addRoutes(to: router)
    let log = LogController(store: web.store)
    log.addRoutes(to: router)
    log.addStepRoutes(to: router, assets: web.assets)
    AssetController(store: web.store, bots: web.bots).addRoutes(to: router)
    APIController(store: web.store, cache: cache).addRoutes(to: router)
    ActionsController(store: web.store, bots: web.bots, gate: gate, clock: web.clock).addRoutes(to: router)
    WebhookController(store: web.store, bots: web.bots, secret: web.webhookSecret, logger: logger, clock: web.clock).addRoutes(to: router)
    MetricsController(store: web.store, registry: metrics, host: web.host).addRoutes(to: router)
    SnapshotController(store: web.store, layout: web.snapshots).addRoutes(to: router)
    return router
}

/// The routes the server answers, `METHOD /path` with their parameters (`{bot}`): what a test
/// walks to prove that none skips the access check.
public func webRoutes(_ web: WebDependencies) -> [String] {
    let logger = Logger(label: "kiln.routes", factory: { _ in SwiftLogNoOpLogHandler() })
    let health = HealthMonitor(store: web.store, settings: web.health, clock: web.clock.monotonic)
    return webRouter(web, cache: ResponseCache(store: web.store), health: health, metrics: PrometheusCollectorRegistry(), logger: logger).routes.map(
        \.description)
}

/// The HTTP application: every route of docs/http.md and the listener, as one `Service`.
/// `onListening` hears the port once it listens (port 0 picks a free one).
public func buildWebApplication(
    _ web: WebDependencies, logger: Logger, onListening: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some Service {
    let metrics = PrometheusCollectorRegistry()
    let cache = ResponseCache(store: web.store, clock: web.clock.monotonic)
    let health = HealthMonitor(store: web.store, settings: web.health, clock: web.clock.monotonic)
    let router = webRouter(web, cache: cache, health: health, metrics: metrics, logger: logger)
    let listen = web.listen
    let (ports, listening) = AsyncStream.makeStream(of: Int.self)
    let application = Application(
        router: router,
        configuration: .init(address: .hostname(listen.host, port: listen.port), serverName: "kiln"),
        services: [cache, health],
        onServerRunning: { channel in
            // Returning is what lets the server accept: the first requests are asked beside it.
            listening.yield(channel.localAddress?.port ?? listen.port)
            listening.finish()
        },
        logger: logger
    )
    return WarmStart(
        application: application, warm: { await warmUp(web, cache: cache, logger: logger) }, ports: ports, listening: listening
    ) { port in
        await FirstRequests.ask(listen, port: port, logger: logger)
        // What they rendered, like the warm copies, is not answered after a change.
        await cache.expireOnChange()
        await onListening(port)
    }
}

/// The web application, listening only once `warm` has run; once it listens, `started` runs
/// beside it with the port.
struct WarmStart<Inner: Service>: Service {
    let application: Inner
    let warm: @Sendable () async -> Void
    let ports: AsyncStream<Int>
    let listening: AsyncStream<Int>.Continuation
    let started: @Sendable (Int) async -> Void

    func run() async throws {
        await warm()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                defer { listening.finish() }
                try await application.run()
            }
            group.addTask {
                for await port in ports { await started(port) }
            }
        }
    }
}

/// Renders into the cache what the first requests after a start ask for (the front page and
/// `/api/bots` as the anonymous see them, or as a token for every bot does where they see
/// nothing, and which bots are private), before the listener opens. The start's own writes
/// (bots loaded, integrations recovered) are in the store by then. The first second's requests
/// then find them made, instead of all waiting on one first render that pays the store's first
/// reads and the templates' first use.
func warmUp(_ web: WebDependencies, cache: ResponseCache, logger: Logger) async {
    let access: Access =
        web.anonymous == .read ? .anonymous(.read) : .token(AccessToken(name: "warm-up", role: .viewer, createdAt: web.clock.now))
    let pages = PagesController(store: web.store, assets: web.assets, cache: cache, notice: web.notice, clock: web.clock)
    do {
        _ = try await cache.botVisibility(from: web.store)
        _ = try await pages.frontPage(for: access, bigscreen: false)
        _ = try await APIController(store: web.store, cache: cache).botList(for: access)
        await cache.expireOnChange()
    } catch {
        // The first requests render them, as they would have.
        logger.warning("cannot render the front page before listening: \(error)")
    }
}
