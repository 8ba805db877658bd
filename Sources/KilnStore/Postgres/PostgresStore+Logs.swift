import Foundation
import KilnCore
import Logging
import PostgresNIO
import Synchronization

/// Logs in the database, in chunks at their byte offsets, so that every host serves every log,
/// including one being written elsewhere. Each chunk is written only while its claim holds, and
/// ends with `NOTIFY kiln, 'log'`, which wakes live-log followers on every host.
extension PostgresStore {
    public func logSink(for claim: Claim) -> (any LogSink)? {
        PostgresLogSink(store: self, claim: claim)
    }

    public func logLocation(bot: String, number: Int) -> String? {
        logsDirectory.map { LogFiles.path(in: $0, bot: bot, number: number) }
    }

    public func readLog(bot: String, number: Int, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]? {
        let offset = max(0, offset)
        return try await read("reading the log of \(bot) #\(number)") { [logger] connection in
            let chunks = try await connection.rows(
                """
                SELECT start_offset, data FROM log_chunk
                WHERE integration_id = (SELECT id FROM integration WHERE bot = \(bot) AND number = \(number))
                    AND start_offset + length(data) > \(offset) AND start_offset < \(offset + max(0, limit))
                ORDER BY start_offset
                """, logger: logger)
            if chunks.isEmpty {
                let any = try await connection.row(
                    """
                    SELECT 1 AS found FROM log_chunk WHERE integration_id = (SELECT id FROM integration WHERE bot = \(bot) AND number = \(number)) LIMIT 1
                    """, logger: logger)
                return any == nil ? nil : []
            }
            var bytes: [UInt8] = []
            for chunk in chunks {
                let start: Int = try chunk("start_offset")
                let data: ByteBuffer = try chunk("data")
                let from = max(0, offset - start)
                guard start + from == offset + bytes.count, let slice = data.getBytes(at: data.readerIndex + from, length: data.readableBytes - from)
                else { break }  // a gap: a chunk not written yet
                bytes += slice
            }
            return Array(bytes.prefix(max(0, limit)))
        }
    }

    public func logSize(bot: String, number: Int) async throws(StoreError) -> Int? {
        try await read("reading the size of the log of \(bot) #\(number)") { [logger] connection in
            try await connection.row(
                """
                SELECT max(start_offset + length(data)) AS size FROM log_chunk
                WHERE integration_id = (SELECT id FROM integration WHERE bot = \(bot) AND number = \(number))
                """, logger: logger
            ).flatMap { try $0("size", as: Int?.self) }
        }
    }

    func appendNote(_ note: String, to integration: Integration) async {
        _ = try? await write("adding to the log of \(integration.bot) #\(integration.number)", notify: "log") { [logger] connection in
            try await Self.appendNote(connection, "\n*** \(note)\n", to: integration.id, logger: logger)
        }
    }

    /// Appends `text` at the end of a log, whoever holds its integration.
    static func appendNote(_ connection: PostgresConnection, _ text: String, to id: Int64, logger: Logger) async throws {
        try await connection.execute(
            """
            INSERT INTO log_chunk (integration_id, start_offset, data)
            SELECT \(id), coalesce(max(start_offset + length(data)), 0), \(ByteBuffer(string: text)) FROM log_chunk WHERE integration_id = \(id)
            """, logger: logger)
    }

    /// Writes one chunk at `offset` if `claim` still holds. A chunk already there (a retry of a
    /// write whose answer was lost) is left as it is.
    func appendChunk(_ claim: Claim, offset: Int, bytes: [UInt8]) async throws(StoreError) {
        try await write("writing the log of \(claim.bot) #\(claim.number)", notify: "log") { [logger] connection in
            try await Self.checkClaim(connection, claim, logger: logger)
            try await connection.execute(
                """
                INSERT INTO log_chunk (integration_id, start_offset, data) VALUES (\(claim.id), \(offset), \(ByteBuffer(bytes: bytes)))
                ON CONFLICT (integration_id, start_offset) DO NOTHING
                """, logger: logger)
        }
    }
}

/// A log on its way to the database: `write` gathers bytes, and one task at a time sends what
/// has gathered as the next chunk, in order. While the database cannot be reached, chunks wait
/// and are sent again; once the claim is lost, nothing more is sent.
final class PostgresLogSink: LogSink {
    private struct State {
        var pending: [UInt8] = []
        var offset = 0
        var sender: Task<Void, Never>?
        var lost = false
    }

    /// The most one chunk carries.
    static let chunkLimit = 1024 * 1024
    /// How long a write waits for more output to join its chunk.
    static let gathering = Duration.milliseconds(20)

    private let store: PostgresStore
    private let claim: Claim
    private let state = Mutex(State())

    init(store: PostgresStore, claim: Claim) {
        self.store = store
        self.claim = claim
    }

    func write(_ bytes: [UInt8]) {
        state.withLock { state in
            guard !state.lost, !bytes.isEmpty else { return }
            state.pending += bytes
            if state.sender == nil { state.sender = Task { await self.send() } }
        }
    }

    func close() async {
        let deadline = ContinuousClock.now + .seconds(30)
        while let sender = state.withLock({ $0.sender }) {
            guard ContinuousClock.now < deadline else {
                // The database stayed away: what is still pending is not kept.
                state.withLock { $0.lost = true }
                sender.cancel()
                return
            }
            await sender.value
        }
    }

    private func send() async {
        try? await Task.sleep(for: Self.gathering)
        while true {
            let next = state.withLock { state -> (bytes: [UInt8], offset: Int)? in
                guard !state.lost, !state.pending.isEmpty else {
                    state.sender = nil
                    return nil
                }
                let bytes = Array(state.pending.prefix(Self.chunkLimit))
                state.pending.removeFirst(bytes.count)
                return (bytes, state.offset)
            }
            guard let next else { return }
            var delay = Duration.milliseconds(100)
            while true {
                do {
                    try await store.appendChunk(claim, offset: next.offset, bytes: next.bytes)
                    state.withLock { $0.offset += next.bytes.count }
                    break
                } catch .claimLost {
                    state.withLock { state in
                        state.lost = true
                        state.pending = []
                        state.sender = nil
                    }
                    return
                } catch {
                    if Task.isCancelled { return }
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(2))
                }
            }
        }
    }
}
