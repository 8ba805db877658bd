import Foundation
import KilnCore
import KilnStore
import Logging

/// The bots the server knows, as last loaded from the bots directory.
///
/// The catalog is replaced whole on every load, so readers always see one consistent set, and
/// recorded in the store, so that `kiln status` and the pages show the bots and their problems.
public actor BotRegistry {
    public let directory: String
    private let store: (any Store)?
    private let logger: Logger
    public private(set) var catalog = BotCatalog()

    public init(directory: String, store: (any Store)? = nil, logger: Logger) {
        self.directory = directory
        self.store = store
        self.logger = logger
    }

    /// Reads every bot file again; a broken file is recorded with its problems, never thrown.
    @discardableResult
    public func reload() async throws(ConfigError) -> BotCatalog {
        let loaded = try BotCatalog.load(directory: directory)
        for entry in loaded.bots {
            logger.info("bot loaded", metadata: ["bot": "\(entry.bot.name)", "file": "\(entry.file)"])
        }
        for broken in loaded.broken {
            logger.error(
                "bot broken", metadata: ["bot": "\(broken.name)", "file": "\(broken.file)", "problems": "\(broken.problems.map(\.description))"])
        }
        catalog = loaded
        do {
            try await store?.syncBots(loaded.states, now: Date())
        } catch {
            logger.error("cannot record the loaded bots", metadata: ["error": "\(error)"])
        }
        return loaded
    }
}
