import Foundation
import KilnStore
import NIOCore
import Synchronization

/// Keeps rendered answers (the front page, `/api/bots`) until the store changes or they are a
/// second old, so a wall of screens and scrapers costs one query a second, not one per request.
///
/// The store's file is watched with inotify (a write by any process bumps the generation); the age
/// limit keeps "how long ago" texts fresh and covers a missed change.
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
    func body(for key: String, make: @Sendable () async throws -> ByteBuffer) async rethrows -> ByteBuffer {
        let now = ContinuousClock.now
        let current = generation.value.load(ordering: .relaxed)
        if let entry = entries[key], entry.generation == current, now - entry.madeAt < maximumAge {
            return entry.body
        }
        let body = try await make()
        entries[key] = Entry(generation: current, madeAt: now, body: body)
        return body
    }
}
