//===----------------------------------------------------------------------===//
//
// This source file is part of the Kiln open source project
//
// Copyright (c) 2026 the Kiln project authors
// Licensed under Apache License v2.0
//
// See LICENSE for license information
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Synchronization

/// Where an engine hears of changes: SQLite's inotify watch on its file, PostgreSQL's LISTEN.
protocol ChangeSource: Sendable {
    func stop()
    /// Whether a change has happened that the source has not yet told (its notice on the way).
    var hasUntoldChanges: Bool { get }
}

/// Fans an engine's change signals out to every subscriber of `Store.changes()` and `logChanges()`.
///
/// One source runs while anyone subscribes, and stops with the last subscriber. Each subscriber's
/// stream keeps only the newest wake-up: a subscriber that is busy when several commits land
/// hears of them once, and looks at the store afresh.
public final class ChangeHub: Sendable {
    /// Starts the source, which tells the hub what changed, and (at once, before it can tell
    /// what) that access may have changed.
    typealias StartSource =
        @Sendable (
            _ onChange: @escaping @Sendable (ChangeKind) -> Void, _ accessMayHaveChanged: @escaping @Sendable () -> Void
        ) -> (any ChangeSource)?

    private struct State {
        var subscribers: [Int: (kind: ChangeKind, continuation: AsyncStream<Void>.Continuation)] = [:]
        var nextID = 0
        var source: (any ChangeSource)?
        var watchers: [Int: AsyncStream<Void>.Continuation] = [:]
    }

    private let start: StartSource
    private let state = Mutex(State())
    /// Held while the source starts, which may wait for the engine (SQLite's first look at its
    /// writer, `ForeignCommits`): not `state`, which the engine's commits take to broadcast.
    private let starting = Mutex(())
    private let accessChanges = Atomic<Int>(0)

    init(start: @escaping StartSource) {
        self.start = start
    }

    func subscribe(to kind: ChangeKind = .data) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (id, watchers) = starting.withLock { _ in
            let (id, idle) = state.withLock { state in
                let id = state.nextID
                state.nextID += 1
                state.subscribers[id] = (kind, continuation)
                return (id, state.source == nil)
            }
            // Running before the first subscriber hears back, as for every later one.
            if idle {
                let source = start({ [weak self] kind in self?.broadcast(kind) }, { [weak self] in self?.accessMayHaveChanged() })
                state.withLock { $0.source = source }
            }
            return (id, state.withLock { Array($0.watchers.values) })
        }
        for watcher in watchers { watcher.yield() }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return stream
    }

    /// A number that moves, before any subscriber wakes, with every change that may concern
    /// access: a token made or revoked (`.access`), a change the engine cannot tell apart
    /// (every commit SQLite's watcher hears; PostgreSQL's reconnecting), or changes gone unheard.
    var accessEpoch: Int { accessChanges.load(ordering: .acquiring) }

    /// `accessEpoch`, or nil while the source has a change it has not told yet: a commit that
    /// returned may be heard only after the next request (SQLite's watcher thread, its event
    /// queued, not yet scheduled), and that request must not be answered from memory.
    var toldAccessEpoch: Int? {
        // The source first: once it has nothing untold, everything it heard moved the epoch.
        if state.withLock({ $0.source })?.hasUntoldChanges == true { return nil }
        return accessEpoch
    }

    /// Says that access may have changed unheard (the connection that hears changes was lost).
    func accessMayHaveChanged() {
        accessChanges.add(1, ordering: .releasing)
    }

    /// Whether a source of changes runs (it does while anyone subscribes).
    var isListening: Bool { state.withLock { $0.source != nil } }

    /// Wakes every subscriber to `kind`.
    func broadcast(_ kind: ChangeKind = .data) {
        if kind == .access || kind == .stop { accessMayHaveChanged() }
        let subscribers = state.withLock { $0.subscribers.values.filter { $0.kind.hears(kind) }.map(\.continuation) }
        for subscriber in subscribers { subscriber.yield() }
    }

    /// Whether anyone subscribes to changes of `kind`.
    func isHeard(_ kind: ChangeKind) -> Bool {
        state.withLock { $0.subscribers.values.contains { $0.kind == kind } }
    }

    /// Wakes at once, then whenever a subscription begins or ends: for work that an engine does
    /// only while someone subscribes to a kind (`isHeard`).
    func subscriptionChanges() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.watchers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) } }
        continuation.yield()
        return stream
    }

    private func unsubscribe(_ id: Int) {
        let (idle, watchers) = state.withLock { state -> ((any ChangeSource)?, [AsyncStream<Void>.Continuation]) in
            state.subscribers[id] = nil
            let watchers = Array(state.watchers.values)
            guard state.subscribers.isEmpty else { return (nil, watchers) }
            defer { state.source = nil }
            return (state.source, watchers)
        }
        idle?.stop()
        for watcher in watchers { watcher.yield() }
    }

    deinit {
        let (source, watchers) = state.withLock { ($0.source, Array($0.watchers.values)) }
        source?.stop()
        for watcher in watchers { watcher.finish() }
    }
}
