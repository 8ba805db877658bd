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
import KilnBuild
import KilnCore
import KilnGit
import KilnMail
import KilnStore
import KilnWeb
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

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

/// Kiln built from its settings: the one composition root, which `kiln serve`, `kiln run` and the
/// tests all call. Like Hummingbird's `Application`, it owns its services and runs them.
///
/// Building opens the store (ending what a crashed process left running and ending that
/// integration's leftover processes) and wires the bot registry, the mirrors and the integration
/// sequencer; a server (`Role.server`) adds the scheduler, the mailer and the HTTP application.
public struct KilnApplication: Sendable {
    /// What the application is for.
    public enum Role: Sendable {
        /// `kiln serve`: scheduler, executors, mail and HTTP.
        case server(onListening: @Sendable (Int) async -> Void)
        /// `kiln run`: one integration in the foreground; nothing runs in the background.
        case foreground
    }

    public let settings: ServerSettings
    public let store: any Store
    public let registry: BotRegistry
    public let sequencer: IntegrationSequencer
    /// The scheduler of a server; nil in the foreground.
    public let scheduler: Scheduler?
    /// What runs until shutdown (none in the foreground), the store first so that it stops last.
    public let services: [any Service]
    /// Which services still run: what a stop that outlasts `stop-limit` names.
    public let ledger: ServiceLedger

    /// A server's hold on its data directory (`ServeLock`), kept for the application's life.
    let lock: ServeLock?
    /// Integrations a previous, crashed process left running, now ended as internal-error.
    public let recovered: [Integration]
    let logger: Logger
    /// The time of day every service reads (`WallClock`); tests pass one they move.
    public let clock: WallClock

    /// Runs `body` while libgit2 opens and initialises on a thread of its own: for `kiln run`,
    /// which needs it within milliseconds and meanwhile reads its configuration and opens the
    /// store. The loader binding libgit2 and its libraries, and libgit2 parsing the system's
    /// certificates, take milliseconds of CPU (docs/performance.md), and on two cores no longer
    /// come before the first step. The first use waits for whatever is left. libcurl is not opened
    /// here: `kiln run` needs it only on PostgreSQL (a snapshot fetched from another host), and
    /// loading it beside the integration held the loader's lock for about 5 ms, which the
    /// integration's first call into libgit2 waited out (`build` opens it where it may be used:
    /// 2–4 ms of a warm integration in `make bench --only integration`). Returns, or
    /// throws `body`'s error, only once that thread is done: a process that exits while another
    /// thread is inside the loader can crash in exit's teardown (`kiln run` of an unknown bot,
    /// which ends at once, died of SIGSEGV in 4 of 300 runs).
    public static func openingLibraries<T>(_ body: () async throws -> T) async throws -> T {
        let opened = DispatchGroup()
        DispatchQueue.global(qos: .userInitiated).async(group: opened) {
            GitLibrary.initialize()
        }
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        await withCheckedContinuation { continuation in opened.notify(queue: .global()) { continuation.resume() } }
        return try result.get()
    }

    /// Whether a process in `role` may use libcurl (mail, forges, another host's snapshots and
    /// archives): a server always; `kiln run` only when hosts share a PostgreSQL database.
    static func needsCurl(_ role: Role, _ config: ServerConfig) -> Bool {
        if case .server = role { return true }
        return config.database != nil
    }

    /// `sandbox`: what a caller already probed of bubblewrap (`kiln run` refuses early); probed
    /// here when nil.
    public static func build(
        settings: ServerSettings, role: Role, sandbox probed: SandboxAvailability? = nil, logger: Logger, clock: WallClock = .system
    ) async throws(ServerSetupError) -> KilnApplication {
        let config = settings.config
        let layout = config.dataDirectory
        var lock: ServeLock?
        if case .server = role { lock = try ServeLock.acquire(layout, host: config.host, listen: config.listen) }
        let store: any Store
        let recovered: [Integration]
        do {
            let user: StoreLocation.User = if case .server = role { .server } else { .foreground }
            store = try await StoreLocation.open(config, for: user, logger: logger)
            let host = config.host
            recovered = try await store.recoverAbandoned(isAlive: { ProcessOwner.isAlive($0, onHost: host) }, now: clock.now)
        } catch {
            throw .store(error)
        }
        // Opened on first use, not at start: a missing one is found here rather than
        // mid-integration; after the store, so that a load begun in the background
        // (`openingLibraries`) has had the store's opening to finish beside it.
        if let problem = GitLibrary.loadError ?? (needsCurl(role, config) ? CurlLibrary.loadError : nil) { throw .library(problem) }
        for integration in recovered { Workspace.killLeftovers(of: integration, in: layout) }
        let sandbox = if let probed { probed } else { await SandboxAvailability.probe(config) }
        if let sentence = sandbox.sentence { logger.error("\(sentence)") }
        let registry = BotRegistry(directory: config.bots, store: store, sandbox: sandbox, logger: logger, clock: clock)
        let serving = if case .server = role { true } else { false }
        let sequencer = IntegrationSequencer(
            store: store, mirrors: Mirrors(directory: layout.mirrors, sshKeyFile: config.sshKeyFile), layout: layout,
            serverEnvironment: settings.environment,
            secretFiles: { config.secretFiles + (await registry.catalog.bots.compactMap { $0.bot.forge?.tokenFile }) }, bisects: serving,
            executors: config.executors,
            logger: logger, clock: clock, toolchains: config.toolchains,
            snapshots: WorkspaceSnapshots(layout: layout, host: config.host, maxSize: config.cacheMaxSize), catalog: store,
            limits: config.limits, forkLimits: config.forkLimits, shards: serving && config.database != nil ? store : nil)
        guard case .server(let onListening) = role else {
            return KilnApplication(
                settings: settings, store: store, registry: registry, sequencer: sequencer, scheduler: nil, services: [], ledger: ServiceLedger(),
                lock: nil,
                recovered: recovered,
                logger: logger, clock: clock)
        }
        logger.info("\(ControlGroups.host.sentence)")
        if let notice = ControlGroups.host.waitNotice { logger.notice("\(notice)") }
        let leftGroups = await ControlGroups.host.removeLeftGroups()
        if !leftGroups.isEmpty { logger.notice("limits: removed the control groups an ended Kiln left: \(leftGroups.joined(separator: ", "))") }
        let timeZone = config.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current
        let scheduler = Scheduler(
            registry: registry, store: store, sequencer: sequencer,
            settings: Scheduler.Settings(
                executors: config.executors, timeZone: timeZone, retention: config.retention, host: config.host, hostLease: config.hostLease),
            logger: logger, clock: clock)
        let address = HostAddress()
        let keeper = HostKeeper(
            store: store, scheduler: scheduler, registry: registry, host: config.host, executors: config.executors, lease: config.hostLease,
            logger: logger, clock: clock, toolchains: sequencer.offeredToolchains, address: address)
        let mailer = Mailer(store: store, registry: registry, delivery: try mailDelivery(settings, store: store), logger: logger, clock: clock)
        let publicURL = config.publicURL ?? "http://\(config.listen)"
        let statuses = StatusPublisher(store: store, registry: registry, publicURL: publicURL, logger: logger, clock: clock)
        let reviews = ReviewPublisher(
            store: store, publicURL: publicURL, logger: logger, clock: clock,
            reviewing: { await registry.forgeBots.contains { $0.forge?.review == true } })
        let audit = AuditRetention(store: store, retention: config.auditRetention, logger: logger, clock: clock)
        let triggers = TriggerSocket(
            path: layout.triggerSocket, registry: registry, store: store, scheduler: scheduler, logger: logger, clock: clock)
        var dependencies = WebDependencies(
            store: store, bots: { await registry.catalog.bots.map(\.bot) }, assets: try webAssets(settings),
            webhookSecret: try webhookSecret(config), listen: config.listen, host: config.host, notice: sandbox.sentence, clock: clock)
        dependencies.anonymous = config.anonymousAccess
        dependencies.secureCookies = config.publicURL?.lowercased().hasPrefix("https://") == true
        dependencies.snapshots = layout
        dependencies.source = Self.sourceReader(sequencer.mirrors)
        dependencies.health = HealthSettings(
            dataDirectory: config.data, minFreeDisk: config.healthMinFreeDisk, scheduler: scheduler.pulse,
            schedulerLimit: max(.seconds(30), scheduler.settings.tick * 10))
        let web = buildWebApplication(dependencies, logger: logger) { port in
            address.listening(on: config.listen, port: port, host: config.host)
            await onListening(port)
        }
        let ledger = ServiceLedger()
        let named: [(String, any Service)] = [
            ("store", StoreService(store: store)), ("web", web), ("scheduler", scheduler), ("host keeper", keeper), ("mailer", mailer),
            ("status publisher", statuses), ("review publisher", reviews), ("audit retention", audit), ("trigger socket", triggers),
        ]
        return KilnApplication(
            settings: settings, store: store, registry: registry, sequencer: sequencer, scheduler: scheduler,
            services: named.map { NamedService(name: $0.0, service: $0.1, ledger: ledger) }, ledger: ledger,
            lock: lock, recovered: recovered, logger: logger, clock: clock)
    }

    /// Loads the bot files and records them in the store; a server's scheduler then follows
    /// their changes without reading them a second time.
    public func loadBots() async throws(ConfigError) -> BotCatalog {
        if let scheduler { return try await scheduler.loadBots() }
        return try await registry.reload()
    }

    /// Runs every service until they end: on one of `signals` gracefully (integrations canceled
    /// and recorded, the listener closed), at once when the task is canceled.
    public func run(gracefulShutdownSignals signals: [UnixSignal] = []) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }, gracefulShutdownSignals: signals,
                cancellationSignals: [], logger: logger))
        do {
            try await group.run()
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw ServerSetupError.addressInUse(settings.config.listen)
        }
    }

    private static func webAssets(_ settings: ServerSettings) throws(ServerSetupError) -> WebAssets {
        do {
            return try WebAssets.load(environment: settings.environment)
        } catch {
            throw .assets(error)
        }
    }

    /// The web's source files, from this host's mirrors (fetched first when they lack the commit).
    private static func sourceReader(_ mirrors: Mirrors) -> SourceReader {
        { repository, commit, path in
            do throws(GitError) {
                guard let contents = try await mirrors.file(path, at: commit, of: repository) else { return .missing }
                return .text(contents)
            } catch {
                return .unavailable(error.description)
            }
        }
    }

    private static func webhookSecret(_ config: ServerConfig) throws(ServerSetupError) -> [UInt8]? {
        guard let path = config.webhookSecretFile else { return nil }
        guard let secret = SecretFile.read(path) else { throw .webhookSecret(path: path) }
        return secret
    }

    private static func mailDelivery(_ settings: ServerSettings, store: any Store) throws(ServerSetupError) -> Mailer.Delivery? {
        let config = settings.config
        guard let smtp = config.smtp else { return nil }
        do {
            let notifier = Notifier(
                store: store, templates: try MailTemplates.load(environment: settings.environment), from: smtp.from,
                publicURL: config.publicURL ?? "http://\(config.listen)", reports: config.reports,
                timeZone: config.timeZone.flatMap(TimeZone.init(identifier:)) ?? .current)
            return Mailer.Delivery(notifier: notifier, client: try SMTPClient(settings: smtp), sender: smtp.from.address)
        } catch {
            throw .mail("\(error)")
        }
    }
}

/// The store's background work (`Store.run()`) as a service.
struct StoreService: Service {
    let store: any Store

    func run() async throws {
        await cancelWhenGracefulShutdown { await store.run() }
    }
}

/// Why Kiln could not be built from its settings.
public enum ServerSetupError: Error, Sendable, CustomStringConvertible {
    case store(StoreError)
    case assets(WebAssetsError)
    case webhookSecret(path: String)
    case mail(String)
    case dataDirectory(String)
    /// The listen address is taken by another program.
    case addressInUse(ListenAddress)
    /// libgit2 or libcurl cannot be opened; says which package to install.
    case library(String)

    public var description: String {
        switch self {
        case .store(let error): "\(error)"
        case .assets(let error): "\(error)"
        case .webhookSecret(let path):
            "cannot read the webhook secret file \(path) (webhooks.secret-file): create it with the secret, or remove the key"
        case .mail(let reason): reason
        case .dataDirectory(let reason), .library(let reason): reason
        case .addressInUse(let address):
            "cannot listen on \(address): the address is in use by another program (choose another with --listen or listen: in kiln.yml)"
        }
    }
}
