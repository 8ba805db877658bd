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

/// A store whose logs are files under a logs directory (both engines, for now).
protocol LogFileStore: Store {
    var logsDirectory: String? { get }
}

extension LogFileStore {
    public func logLocation(bot: String, number: Int) -> String? {
        logsDirectory.map { LogFiles.path(in: $0, bot: bot, number: number) }
    }

    public func readLog(bot: String, number: Int, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]? {
        try LogFiles.read(logLocation(bot: bot, number: number), from: offset, limit: limit, what: "the log of \(bot) #\(number)")
    }

    public func logSize(bot: String, number: Int) async throws(StoreError) -> Int? {
        LogFiles.size(logLocation(bot: bot, number: number))
    }
}

extension Store {
    /// Ends those of `running` (with their owners) whose process is gone as `internal-error`,
    /// with the reason appended to their logs: `recoverAbandoned` on every engine.
    func endAbandoned(_ running: [(integration: Integration, owner: String)], isAlive: (String) -> Bool, now: Date) async throws(StoreError)
        -> [Integration]
    {
        var recovered: [Integration] = []
        for (integration, owner) in running where !isAlive(owner) {
            let reason = StoreRules.abandonedReason(owner: owner, step: integration.step)
            if let log = logLocation(bot: integration.bot, number: integration.number) { LogFiles.append("\n*** \(reason)\n", to: log) }
            recovered.append(try await complete(integration.id, outcome: IntegrationOutcome(result: .internalError, reason: reason), now: now))
        }
        return recovered
    }
}
