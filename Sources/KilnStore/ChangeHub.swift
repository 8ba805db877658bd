import Synchronization

/// Where an engine hears of changes: SQLite's inotify watch on its file, PostgreSQL's LISTEN.
protocol ChangeSource: Sendable {
    func stop()
}

/// Fans an engine's change signals out to every subscriber of `Store.changes()` and `logChanges()`.
///
/// One source runs while anyone subscribes, and stops with the last subscriber. Each subscriber's
/// stream keeps only the newest wake-up: a subscriber that is busy when several commits land
/// hears of them once, and looks at the store afresh.
public final class ChangeHub: Sendable {
    typealias StartSource = @Sendable (_ onChange: @escaping @Sendable (ChangeKind) -> Void) -> (any ChangeSource)?

    private struct State {
        var subscribers: [Int: (kind: ChangeKind, continuation: AsyncStream<Void>.Continuation)] = [:]
        var nextID = 0
        var source: (any ChangeSource)?
    }

    private let start: StartSource
    private let state = Mutex(State())

    init(start: @escaping StartSource) {
        self.start = start
    }

    func subscribe(to kind: ChangeKind = .data) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = (kind, continuation)
            if state.source == nil {
                state.source = start { [weak self] kind in self?.broadcast(kind) }
            }
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    /// Wakes every subscriber to `kind`.
    func broadcast(_ kind: ChangeKind = .data) {
        let subscribers = state.withLock { $0.subscribers.values.filter { $0.kind.hears(kind) }.map(\.continuation) }
        for subscriber in subscribers { subscriber.yield() }
    }

    private func unsubscribe(_ id: Int) {
        let idle = state.withLock { state -> (any ChangeSource)? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            defer { state.source = nil }
            return state.source
        }
        idle?.stop()
    }

    deinit {
        state.withLock { $0.source?.stop() }
    }
}
