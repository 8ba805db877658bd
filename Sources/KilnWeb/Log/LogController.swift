import Foundation
import Hummingbird
import KilnCore
import KilnStore

/// `GET /bots/{bot}/integrations/{n}/log`: the log as text/plain. A completed integration's log is
/// sent as it is on disk; a running one's is streamed as it grows, until the integration ends.
///
/// The file is never named by the request: the bot must be a valid, known bot name and the number
/// a known integration of it, and the path comes from the store.
struct LogController {
    let store: any Store
    /// Where the store keeps an integration's log.
    let logPath: @Sendable (String, Int) -> String?
    /// How often a followed log is looked at for more.
    var followInterval: Duration = .milliseconds(200)

    static let chunkSize = 64 * 1024

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("bots/{bot}/integrations/{number}/log") { _, context in
            let (integration, path) = try locate(bot: try context.parameters.require("bot"), number: context.parameters.get("number"))
            let headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache", .contentTypeOptions: "nosniff"]
            guard integration.step != .completed else {
                guard let handle = FileHandle(forReadingAtPath: path) else {
                    let note = integration.expired ? "the log was deleted by retention" : "no log was recorded"
                    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "(\(note))\n")))
                }
                return Response(
                    status: .ok, headers: headers,
                    body: ResponseBody { writer in
                        defer { try? handle.close() }
                        while let chunk = try handle.read(upToCount: Self.chunkSize), !chunk.isEmpty {
                            try await writer.write(ByteBuffer(bytes: chunk))
                        }
                        try await writer.finish(nil)
                    })
            }
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    try await follow(integration, path: path, into: &writer)
                    try await writer.finish(nil)
                })
        }
    }

    /// Sends what the file holds, then what is appended, until the integration has completed and
    /// everything it wrote has been sent.
    private func follow(_ integration: Integration, path: String, into writer: inout any ResponseBodyWriter) async throws {
        var handle: FileHandle?
        defer { try? handle?.close() }
        while !Task.isCancelled {
            if handle == nil { handle = FileHandle(forReadingAtPath: path) }
            var sent = false
            while let chunk = try handle?.read(upToCount: Self.chunkSize), !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
                sent = true
            }
            if !sent {
                let now = try store.integrations(bot: integration.bot, limit: 1, before: integration.number + 1).first
                if now?.step == .completed || now?.number != integration.number {
                    // Whatever was written before the store said completed is in the file by now.
                    while let chunk = try handle?.read(upToCount: Self.chunkSize), !chunk.isEmpty {
                        try await writer.write(ByteBuffer(bytes: chunk))
                    }
                    return
                }
                try await Task.sleep(for: followInterval)
            }
        }
    }

    func locate(bot: String, number: String?) throws -> (Integration, String) {
        guard Bot.isValidName(bot), let number = number.flatMap({ Int($0) }), number > 0,
            let integration = try store.integrations(bot: bot, limit: 1, before: number + 1).first, integration.number == number,
            let path = logPath(bot, number)
        else { throw WebError.notFound("log of integration \(number ?? "?") of bot '\(bot)'") }
        return (integration, path)
    }

    /// The end of a log, at most `limit` bytes, starting at a line; nil when there is no log.
    static func tail(of path: String, limit: Int = 64 * 1024) -> (text: String, truncated: Bool)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        let start = size > UInt64(limit) ? size - UInt64(limit) : 0
        try? handle.seek(toOffset: start)
        var data = (try? handle.readToEnd()) ?? Data()
        if start > 0, let newline = data.firstIndex(of: UInt8(ascii: "\n")) {
            data = data[data.index(after: newline)...]
        }
        return (String(decoding: data, as: UTF8.self), start > 0)
    }
}
