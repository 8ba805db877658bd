import Foundation
import KilnCore

/// Logs of the embedded store are files beside the database (`DataDirectory.log(of:number:)`),
/// written as output arrives by the build and read here.
extension SQLiteStore {
    public func logLocation(bot: String, number: Int) -> String? {
        logsDirectory.map { "\($0)/\(bot)/\(number).log" }
    }

    public func readLog(bot: String, number: Int, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]? {
        guard let path = logLocation(bot: bot, number: number), let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(max(0, offset)))
            return Array(try handle.read(upToCount: max(0, limit)) ?? Data())
        } catch {
            throw .query(what: "reading the log of \(bot) #\(number)", reason: "\(error)")
        }
    }

    public func logSize(bot: String, number: Int) async throws(StoreError) -> Int? {
        guard let path = logLocation(bot: bot, number: number),
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
        else { return nil }
        return size.intValue
    }
}
