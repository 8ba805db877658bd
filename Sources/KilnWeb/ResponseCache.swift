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

import Foundation
import KilnCore
import KilnStore
import NIOCore
import ServiceLifecycle

/// Keeps rendered answers (the front page, `/api/bots`) until the store changes or they are a
/// second old, so a wall of screens and scrapers costs one query a second, not one per request.
///
/// It follows the store's change stream as a service of the application: a write by any process
/// bumps the generation. A copy made in the last second is answered even after a change, while
/// one new copy is made for the requests that follow: under a storm of writes (a start records
/// its bots and host; a busy queue) the page is rendered once at a time and nobody waits for it.
/// Only a copy older than that, or none, is waited for.
actor ResponseCache: Service {
    private struct Entry {
        var generation: Int
        var madeAt: ContinuousClock.Instant
        var body: ByteBuffer
        /// Whether it is answered for a second after a change, while a new copy is made. Not a
        /// copy made at start (`expireOnChange`).
        var graceAfterChange = true
    }

    /// A render under way, which every request that must wait for a new copy shares.
    private struct Render {
        var generation: Int
        var task: Task<ByteBuffer, any Error>
    }

    private var entries: [String: Entry] = [:]
    private var renders: [String: Render] = [:]
    private var generation = 0
    private var visibility: (generation: Int, madeAt: ContinuousClock.Instant, bots: [String: Bool])?
    private let maximumAge: Duration
    /// How ages are told.
    private let clock: MonotonicClock
    /// Subscribed when made, so that a change between a render before the listener opens
    /// (`warmUp`) and `run` is heard.
    private let changes: AsyncStream<Void>

    init(store: any ChangeFeed, maximumAge: Duration = .seconds(1), clock: MonotonicClock = .system) {
        self.maximumAge = maximumAge
        self.clock = clock
        changes = store.changes()
    }

    func run() async throws {
        let changes = changes
        await cancelWhenGracefulShutdown {
            for await _ in changes { await self.changed() }
        }
        for render in renders.values { render.task.cancel() }
    }

    private func changed() {
        generation += 1
    }

    /// The cached body for `key`, or a fresh one from `make`.
    ///
    /// Fresh (same generation, younger than `maximumAge`): answered. Merely old: answered while
    /// one new copy is made. Made before the store's latest change: the same while it is younger
    /// than `maximumAge` or a new copy is under way; otherwise (or with no copy yet) the request
    /// waits for the new copy, which every such request shares.
    ///
    /// Waiting on every change once a copy was 100 ms old, as before, made the first second after
    /// a start (with 100,000 integrations, its renders 60–130 ms while the host starts) answer
    /// with a p99 of 50–140 ms: every request of the 32 connections waited on each render.
    func body(for key: String, make: @escaping @Sendable () async throws -> ByteBuffer) async throws -> ByteBuffer {
        if let entry = entries[key] {
            let age = clock.now - entry.madeAt
            if entry.generation == generation, age < maximumAge { return entry.body }
            if entry.generation == generation || (entry.graceAfterChange && age < maximumAge) || renders[key] != nil {
                _ = render(key, make: make)
                return entry.body
            }
        }
        return try await render(key, make: make).value
    }

    /// Takes every copy's grace after a change: the copies made at start (`warmUp`, the
    /// server's own first requests) are answered while nothing changed, but after a change the
    /// first request waits for a new copy, as it would have with none. Renders under way are
    /// waited for first, so that none files a copy with grace after this.
    func expireOnChange() async {
        // Each render's task files its copy and leaves `renders` (`finish`) before it ends; one
        // that fails files nothing, and the next request renders again.
        while let render = renders.values.first { _ = try? await render.task.value }
        for key in entries.keys { entries[key]?.graceAfterChange = false }
    }

    /// Every bot and whether it is private, as the store said since its latest change (and
    /// within a second): read again after any change, so a bot made private is hidden from the
    /// next request on.
    func botVisibility(from store: any AccessRecords) async throws -> [String: Bool] {
        if let visibility, visibility.generation == generation, clock.now - visibility.madeAt < maximumAge { return visibility.bots }
        let (generation, madeAt) = (self.generation, clock.now)
        let bots = try await store.botVisibility()
        if (visibility?.generation ?? -1) <= generation { visibility = (generation, madeAt, bots) }
        return bots
    }

    /// The render of `key` under way for the current generation, or a new one.
    private func render(_ key: String, make: @escaping @Sendable () async throws -> ByteBuffer) -> Task<ByteBuffer, any Error> {
        if let render = renders[key], render.generation == generation { return render.task }
        let generation = self.generation
        let madeAt = clock.now
        // Held in `renders` until it files its copy (cancelled with the service). It runs on this
        // actor but for `make`, so it files only after this call has put it in `renders`.
        let task = Task {
            do {
                let body = try await make()
                self.finish(key, generation: generation, madeAt: madeAt, body: body)
                return body
            } catch {
                self.finish(key, generation: generation, madeAt: madeAt, body: nil)
                throw error
            }
        }
        renders[key] = Render(generation: generation, task: task)
        return task
    }

    private func finish(_ key: String, generation: Int, madeAt: ContinuousClock.Instant, body: ByteBuffer?) {
        if renders[key]?.generation == generation { renders[key] = nil }
        guard let body else { return }
        if let entry = entries[key], entry.generation > generation { return }
        entries[key] = Entry(generation: generation, madeAt: madeAt, body: body)
    }
}
