import Foundation
import KilnBuild
import KilnCore
import KilnGit
import KilnStore
import Logging
import ServiceLifecycle

/// Decides when bots integrate and runs their integrations on a bounded pool of executors.
///
/// - Bot files are reloaded within a second of any change in the bots directory.
/// - on-commit bots have their remote head polled at their `poll` interval; a new head queues an
///   integration (cause `poll`), coalescing with a queued one and superseding a running one.
/// - periodic bots queue an integration (cause `periodic`) when their schedule comes round, in the
///   configured time zone; a period missed while the server was down runs once at start.
/// - Queued integrations — from here, webhooks or `kiln trigger` in another process — are claimed as
///   soon as an executor is free: the store's file is watched for changes.
/// - On graceful shutdown every running integration is canceled (its processes killed) and recorded.
public actor Scheduler: Service {
    public struct Settings: Sendable {
        public var executors: Int
        public var timeZone: TimeZone
        /// Integrations per bot that keep their logs, issues and tests (`retention.integrations`).
        public var retention: Int
        /// How often the loops look at the clock, the bots directory and the store.
        public var tick: Duration
        /// How often the queue is looked at when the store's file cannot be watched.
        public var queueTick: Duration
        /// The SQLite file to watch for changes; nil to look at the queue every `queueTick`.
        public var databasePath: String?

        public init(
            executors: Int, timeZone: TimeZone = .current, retention: Int = 500, tick: Duration = .seconds(1),
            queueTick: Duration = .milliseconds(20), databasePath: String? = nil
        ) {
            self.databasePath = databasePath
            self.executors = executors
            self.timeZone = timeZone
            self.retention = retention
            self.tick = tick
            self.queueTick = queueTick
        }
    }

    let registry: BotRegistry
    let store: any Store
    let executor: IntegrationExecutor
    let settings: Settings
    let logger: Logger
    let owner: String
    let now: @Sendable () -> Date

    /// Per bot: the last head seen on the remote (or integrated), and when it was last polled.
    private var lastHead: [String: String] = [:]
    private var lastPoll: [String: ContinuousClock.Instant] = [:]
    /// Per bot: when its periodic schedule last queued an integration.
    private var lastPeriodic: [String: Date] = [:]
    private var directoryFingerprint = ""
    private let startedAt: Date

    public init(
        registry: BotRegistry, store: any Store, executor: IntegrationExecutor, settings: Settings, logger: Logger,
        owner: String = ProcessOwner.current, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.registry = registry
        self.store = store
        self.executor = executor
        self.settings = settings
        self.logger = logger
        self.owner = owner
        self.now = now
        self.startedAt = now()
    }

    public func run() async throws {
        await reloadIfChanged()
        do {
            let expired = try store.applyRetention(keep: settings.retention, bot: nil)
            if expired > 0 { logger.info("retention", metadata: ["expired": "\(expired)"]) }
        } catch {
            logger.error("cannot apply retention", metadata: ["error": "\(error)"])
        }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.every(self.settings.tick) { await $0.reloadIfChanged() } }
                group.addTask { await self.every(self.settings.tick) { await $0.pollRemotes() } }
                group.addTask { await self.every(self.settings.tick) { await $0.queuePeriodic() } }
                group.addTask { await self.dispatch() }
            }
        }
        logger.info("scheduler stopped")
    }

    /// Runs `body` now and then every `interval` until the task is canceled.
    private nonisolated func every(_ interval: Duration, _ body: @Sendable (Scheduler) async -> Void) async {
        while !Task.isCancelled {
            await body(self)
            try? await Task.sleep(for: interval)
        }
    }

    // MARK: Bots

    /// Loads the bots now (the server reports them before it starts serving); later changes are
    /// picked up by `reloadIfChanged`, which this load spares a second read of the same files.
    public func loadBots() async throws(ConfigError) -> BotCatalog {
        directoryFingerprint = fingerprintOfBotFiles()
        return try await registry.reload()
    }

    func reloadIfChanged() async {
        let fingerprint = fingerprintOfBotFiles()
        guard fingerprint != directoryFingerprint else { return }
        directoryFingerprint = fingerprint
        do {
            let catalog = try await registry.reload()
            logger.info("bots loaded", metadata: ["bots": "\(catalog.bots.count)", "broken": "\(catalog.broken.count)"])
        } catch {
            logger.error("cannot read the bots directory", metadata: ["error": "\(error)"])
        }
    }

    /// Names, sizes and modification times of the bot files: changes when any file does.
    private func fingerprintOfBotFiles() -> String {
        let files = (try? BotCatalog.files(in: registry.directory)) ?? []
        return files.map { file -> String in
            var info = stat()
            _ = stat(file, &info)
            return "\(file) \(info.st_size) \(info.st_mtim.tv_sec) \(info.st_mtim.tv_nsec)"
        }.joined(separator: "\n")
    }

    // MARK: Deciding

    func pollRemotes() async {
        let bots = await registry.catalog.bots.map(\.bot).filter { $0.schedule.onCommit && $0.schedule.poll > .zero }
        let clock = ContinuousClock.now
        let due = bots.filter { bot in lastPoll[bot.name].map { clock - $0 >= bot.schedule.poll } ?? true }
        guard !due.isEmpty else { return }
        for bot in due { lastPoll[bot.name] = clock }
        let mirrors = executor.mirrors
        // Remote heads are asked in parallel, a few at a time.
        let heads = await withTaskGroup(of: (Bot, Result<String, GitError>).self) { group in
            var results: [(Bot, Result<String, GitError>)] = []
            var pending = due[...]
            for _ in 0..<min(8, pending.count) {
                let bot = pending.removeFirst()
                group.addTask { (bot, await Self.remoteHead(bot, mirrors: mirrors)) }
            }
            while let result = await group.next() {
                results.append(result)
                if let bot = pending.popFirst() { group.addTask { (bot, await Self.remoteHead(bot, mirrors: mirrors)) } }
            }
            return results
        }
        for (bot, result) in heads {
            switch result {
            case .failure(let error):
                logger.warning("cannot poll the remote", metadata: ["bot": "\(bot.name)", "error": "\(error)"])
            case .success(let head):
                if lastHead[bot.name] == nil { lastHead[bot.name] = knownHead(of: bot.name) }
                guard lastHead[bot.name] != head else { continue }
                lastHead[bot.name] = head
                queue(bot, cause: .poll, commit: head, why: "the branch moved to \(head.prefix(12))")
            }
        }
    }

    private static func remoteHead(_ bot: Bot, mirrors: Mirrors) async -> Result<String, GitError> {
        do {
            return .success(try await mirrors.remoteHead(bot.repository))
        } catch {
            return .failure(error)
        }
    }

    /// Records a head learnt from a webhook, so that the next poll does not queue the same push.
    public func noteHead(_ commit: String, of bot: String) {
        lastHead[bot] = commit
    }

    /// The newest commit the store has for the bot: queued, running or integrated.
    private func knownHead(of bot: String) -> String? {
        (try? store.integrations(bot: bot, limit: 5, before: nil))?.first { $0.commit != nil }?.commit
    }

    func queuePeriodic() async {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = settings.timeZone
        let current = now()
        for bot in await registry.catalog.bots.map(\.bot) {
            guard let periodic = bot.schedule.periodic else { continue }
            if lastPeriodic[bot.name] == nil {
                // Since the last periodic integration the store knows of, else since this start.
                let last = (try? store.integrations(bot: bot.name, limit: 200, before: nil))?.first { $0.cause == .periodic }?.queuedAt
                lastPeriodic[bot.name] = last ?? startedAt
            }
            guard let last = lastPeriodic[bot.name], let next = periodic.next(after: last, in: calendar), next <= current else { continue }
            // However many periods were missed, one integration, and the next one after now.
            lastPeriodic[bot.name] = current
            queue(bot, cause: .periodic, commit: nil, why: "\(periodic.text) came round")
        }
    }

    func queue(_ bot: Bot, cause: IntegrationCause, commit: String?, why: String) {
        do {
            let outcome = try store.enqueue(
                QueueRequest(bot: bot.name, cause: cause, commit: commit, branch: bot.repository.branch, cancelSuperseded: bot.cancelSuperseded),
                now: now())
            let number = "\(outcome.integration.number)"
            if outcome.coalesced {
                logger.info("coalesced", metadata: ["bot": "\(bot.name)", "number": "\(number)", "cause": "\(cause.rawValue)", "why": "\(why)"])
            } else {
                logger.info("queued", metadata: ["bot": "\(bot.name)", "number": "\(number)", "cause": "\(cause.rawValue)", "why": "\(why)"])
            }
        } catch {
            logger.error("cannot queue", metadata: ["bot": "\(bot.name)", "error": "\(error)"])
        }
    }

    // MARK: Running

    /// Integrations running now.
    private var running = 0

    /// Claims queued integrations while an executor is free, and runs each in a child task that
    /// also watches for a request to cancel it. The queue is looked at when the store's file
    /// changes (inotify: a `kiln trigger` in another process is seen at once), when an executor
    /// frees up, and once a second in case a change was missed.
    private func dispatch() async {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let watcher = settings.databasePath.flatMap { ChangeWatcher(databasePath: $0) { wake.yield() } }
        defer { watcher?.stop() }
        let interval = watcher == nil ? settings.queueTick : .seconds(1)
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    wake.yield()
                }
            }
            wake.yield()
            for await _ in wakeups {
                while running < settings.executors, let claimed = await claim() {
                    running += 1
                    group.addTask {
                        await self.execute(claimed)
                        await self.executorFreed()
                        wake.yield()
                    }
                }
            }
        }
    }

    private func executorFreed() {
        running -= 1
    }

    private func claim() async -> (Integration, Bot?)? {
        do {
            guard let integration = try store.claimNext(owner: owner, now: now()) else { return nil }
            return (integration, await registry.catalog.bot(named: integration.bot))
        } catch {
            logger.error("cannot claim", metadata: ["error": "\(error)"])
            return nil
        }
    }

    private nonisolated func execute(_ claimed: (Integration, Bot?)) async {
        let (integration, bot) = claimed
        guard let bot else {
            _ = try? store.complete(
                integration.id, outcome: IntegrationOutcome(result: .canceled, reason: "the bot's file is gone or broken"), now: now())
            return
        }
        logger.info("started", metadata: ["bot": "\(bot.name)", "number": "\(integration.number)", "cause": "\(integration.cause.rawValue)"])
        let ended = await withTaskGroup(of: Integration?.self) { group in
            group.addTask { await self.executor.run(integration, of: bot) }
            group.addTask {
                // Watches for cancel-superseded (or any other request to stop).
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    if let requests = try? self.store.cancelRequests(owner: self.owner), requests.contains(where: { $0.id == integration.id }) {
                        return nil
                    }
                }
                return nil
            }
            var completed: Integration?
            while let next = await group.next() {
                if let next {
                    completed = next
                    group.cancelAll()
                } else if completed == nil {
                    group.cancelAll()
                }
            }
            return completed
        }
        do {
            let expired = try store.applyRetention(keep: settings.retention, bot: bot.name)
            if expired > 0 { logger.info("retention", metadata: ["expired": "\(expired)"]) }
        } catch {
            logger.error("cannot apply retention", metadata: ["error": "\(error)"])
        }
        logger.info(
            "ended",
            metadata: [
                "bot": "\(bot.name)", "number": "\(integration.number)", "result": "\(ended?.result?.rawValue ?? "unknown")",
            ])
    }
}
