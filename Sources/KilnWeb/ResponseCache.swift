import Foundation
import KilnStore
import NIOCore
import Synchronization

/// Keeps rendered answers (the front page, `/api/bots`) until the store changes or they are a
/// second old, so a wall of screens and scrapers costs one query a second, not one per request.
///
/// The store's file is watched with inotify (a write by any process bumps the generation). An
/// entry that is merely old is still answered while one fresh copy is made beside it, so no
/// request waits for a render except the very first; a change to the store is never answered
/// from before it.
actor ResponseCache {
    private struct Entry {
        var generation: Int
        var madeAt: ContinuousClock.Instant
        var body: ByteBuffer
    }

    /// Bumped from the watcher's thread; read here.
    private final class Generation: Sendable {
        let value = Atomic<Int>(0)
    }

    private var entries: [String: Entry] = [:]
    private var refreshing: Set<String> = []
    private let generation = Generation()
    private let watcher: ChangeWatcher?
    private let maximumAge: Duration

    init(databasePath: String?, maximumAge: Duration = .seconds(1)) {
        self.maximumAge = maximumAge
        let generation = generation
        watcher = databasePath.flatMap { ChangeWatcher(databasePath: $0) { generation.value.add(1, ordering: .relaxed) } }
    }

    deinit { watcher?.stop() }

    /// The cached body for `key`, or a fresh one from `make`.
    func body(for key: String, make: @escaping @Sendable () async throws -> ByteBuffer) async throws -> ByteBuffer {
        let current = generation.value.load(ordering: .relaxed)
        if let entry = entries[key], entry.generation == current {
            if ContinuousClock.now - entry.madeAt >= maximumAge, refreshing.insert(key).inserted {
                Task { await self.refresh(key, generation: current, make: make) }
            }
            return entry.body
        }
        let madeAt = ContinuousClock.now
        let body = try await make()
        entries[key] = Entry(generation: current, madeAt: madeAt, body: body)
        return body
    }

    private func refresh(_ key: String, generation: Int, make: @Sendable () async throws -> ByteBuffer) async {
        defer { refreshing.remove(key) }
        let madeAt = ContinuousClock.now
        guard let body = try? await make() else { return }
        if let entry = entries[key], entry.generation > generation { return }
        entries[key] = Entry(generation: generation, madeAt: madeAt, body: body)
    }
}
