import KilnCore
import Synchronization

/// A log on its way to the database: `write` gathers bytes, and one task at a time sends what
/// has gathered as the next chunk, in order. While the database cannot be reached, chunks wait
/// and are sent again; once the claim is lost, nothing more is sent.
final class DatabaseLogSink: LogSink {
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

    /// Writes one chunk at an offset while the claim holds (`DatabaseStore.appendChunk`).
    typealias Append = @Sendable (_ claim: Claim, _ offset: Int, _ bytes: [UInt8]) async throws(StoreError) -> Void

    private let append: Append
    private let claim: Claim
    private let state = Mutex(State())

    init(claim: Claim, append: @escaping Append) {
        self.append = append
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
                    try await append(claim, next.offset, next.bytes)
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
