import Foundation
import KilnCore

/// Integration logs as files under a logs directory (`<logs>/<bot>/<number>.log`), written by the
/// build as output arrives and read here.
enum LogFiles {
    static func path(in directory: String, bot: String, number: Int) -> String {
        "\(directory)/\(bot)/\(number).log"
    }

    static func read(_ path: String?, from offset: Int, limit: Int, what: String) throws(StoreError) -> [UInt8]? {
        guard let path, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(max(0, offset)))
            return Array(try handle.read(upToCount: max(0, limit)) ?? Data())
        } catch {
            throw .query(what: "reading \(what)", reason: "\(error)")
        }
    }

    static func size(_ path: String?) -> Int? {
        guard let path, let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else { return nil }
        return size.intValue
    }

    static func append(_ text: String, to path: String) {
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(text.utf8))
    }
}

/// A store whose logs are files under a logs directory (SQLite's).
protocol LogFileStore: RecoveringStore {
    var logsDirectory: String? { get }
}

extension LogFileStore {
    public func logLocation(bot: String, number: Int) -> String? {
        logsDirectory.map { LogFiles.path(in: $0, bot: bot, number: number) }
    }

    /// The file is the log.
    public func logSink(for claim: Claim) -> (any LogSink)? {
        nil
    }

    /// Files are followed by looking at them: this stream never yields.
    public func logChanges() -> AsyncStream<Void> {
        AsyncStream { _ in }
    }

    public func readLog(bot: String, number: Int, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]? {
        try LogFiles.read(logLocation(bot: bot, number: number), from: offset, limit: limit, what: "the log of \(bot) #\(number)")
    }

    public func logSize(bot: String, number: Int) async throws(StoreError) -> Int? {
        LogFiles.size(logLocation(bot: bot, number: number))
    }

    func appendNote(_ note: String, to integration: Integration) async {
        if let log = logLocation(bot: integration.bot, number: integration.number) { LogFiles.append("\n*** \(note)\n", to: log) }
    }
}

/// What recovery needs of an engine beyond `Store`.
protocol RecoveringStore: Store {
    /// Adds a line of Kiln's own to an integration's log, whoever held it.
    func appendNote(_ note: String, to integration: Integration) async
}

extension RecoveringStore {
    /// Ends those of `running` (claims as the store holds them) whose process is gone as
    /// `internal-error`, with the reason appended to their logs: `recoverAbandoned` on every engine.
    func endAbandoned(_ running: [Claim], isAlive: (String) -> Bool, now: Date) async throws(StoreError) -> [Integration] {
        var recovered: [Integration] = []
        for claim in running where !isAlive(claim.owner ?? "") {
            let reason = StoreRules.abandonedReason(owner: claim.owner ?? "", step: claim.step)
            await appendNote(reason, to: claim.integration)
            do {
                recovered.append(try await complete(claim, outcome: IntegrationOutcome(result: .internalError, reason: reason), now: now))
            } catch .claimLost {
                continue  // ended meanwhile by its own process or another host
            }
        }
        return recovered
    }
}
