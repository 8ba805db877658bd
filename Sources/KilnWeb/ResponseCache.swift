import Foundation
import KilnStore
import NIOCore
import ServiceLifecycle

/// Keeps rendered answers (the front page, `/api/bots`) until the store changes or they are a
/// second old, so a wall of screens and scrapers costs one query a second, not one per request.
///
/// It follows the store's change stream as a service of the application: a write by any process
/// bumps the generation. Under a storm of writes the page is rendered at most every 100 ms, and no
/// answer is older than that.
actor ResponseCache: Service {
    private struct Entry {
        var generation: Int
        var madeAt: ContinuousClock.Instant
        var body: ByteBuffer
    }

    private var entries: [String: Entry] = [:]
    private var refreshing: Set<String> = []
    private var generation = 0
    private let store: any Store
    private let maximumAge: Duration
    private let minimumInterval: Duration

    init(store: any Store, maximumAge: Duration = .seconds(1), minimumInterval: Duration = .milliseconds(100)) {
        self.store = store
        self.maximumAge = maximumAge
        self.minimumInterval = minimumInterval
    }

    func run() async throws {
        let changes = store.changes()
        await cancelWhenGracefulShutdown {
            for await _ in changes { await self.changed() }
        }
    }

    private func changed() {
        generation += 1
    }

    /// The cached body for `key`, or a fresh one from `make`.
    ///
    /// Fresh (same generation, younger than `maximumAge`): answered. Merely old: answered while one
    /// new copy is made. Made before the store's latest change: answered only while a new copy is
    /// being made or if it is younger than `minimumInterval` (then a new copy is started), so a
    /// burst of writes costs at most one render per interval and a page is never staler than that.
    func body(for key: String, make: @escaping @Sendable () async throws -> ByteBuffer) async throws -> ByteBuffer {
        let current = generation
        let now = ContinuousClock.now
        if let entry = entries[key] {
            let age = now - entry.madeAt
            if entry.generation == current, age < maximumAge { return entry.body }
            if entry.generation == current || refreshing.contains(key) || age < minimumInterval {
                if refreshing.insert(key).inserted { Task { await self.refresh(key, generation: current, make: make) } }
                return entry.body
            }
        }
        let body = try await make()
        entries[key] = Entry(generation: current, madeAt: now, body: body)
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
