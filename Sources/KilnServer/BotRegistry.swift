import KilnCore
import Logging

/// The bots the server knows, as last loaded from the bots directory.
///
/// The catalog is replaced whole on every load, so readers always see one consistent set.
public actor BotRegistry {
    public let directory: String
    private let logger: Logger
    public private(set) var catalog = BotCatalog()

    public init(directory: String, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    /// Reads every bot file again; a broken file is recorded with its problems, never thrown.
    @discardableResult
    public func reload() throws(ConfigError) -> BotCatalog {
        let loaded = try BotCatalog.load(directory: directory)
        for entry in loaded.bots {
            logger.info("bot loaded", metadata: ["bot": "\(entry.bot.name)", "file": "\(entry.file)"])
        }
        for broken in loaded.broken {
            logger.error(
                "bot broken", metadata: ["bot": "\(broken.name)", "file": "\(broken.file)", "problems": "\(broken.problems.map(\.description))"])
        }
        catalog = loaded
        return loaded
    }
}
