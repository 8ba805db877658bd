import Synchronization

/// Fans the SQLite file's changes out to every subscriber of `Store.changes()`.
///
/// One inotify watcher (`ChangeWatcher`) runs while anyone subscribes, and stops with the last
/// subscriber. Each subscriber's stream keeps only the newest wake-up: a subscriber that is busy
/// when several commits land hears of them once, and looks at the store afresh.
final class ChangeHub: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextID = 0
        var watcher: ChangeWatcher?
    }

    private let databasePath: String
    private let state = Mutex(State())

    init(databasePath: String) {
        self.databasePath = databasePath
    }

    func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            if state.watcher == nil {
                state.watcher = ChangeWatcher(databasePath: databasePath) { [weak self] in self?.broadcast() }
            }
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    private func broadcast() {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield() }
    }

    private func unsubscribe(_ id: Int) {
        let idle = state.withLock { state -> ChangeWatcher? in
            state.subscribers[id] = nil
            guard state.subscribers.isEmpty else { return nil }
            defer { state.watcher = nil }
            return state.watcher
        }
        idle?.stop()
    }

    deinit {
        state.withLock { $0.watcher?.stop() }
    }
}
