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
import Synchronization

/// Sends the logs of every integration running on this host to the database, as chunks at their
/// byte offsets (`log_chunk`): it gathers what the integrations wrote for a moment and sends it in
/// one transaction, in order per log. While the database cannot be reached, chunks wait and are
/// sent again; a log whose claim was lost sends nothing more. It works while the store runs
/// (`DatabaseStore.run()`).
final class LogShipper: Sendable {
    /// One chunk of one log.
    struct Chunk: Sendable {
        let claim: Claim
        let offset: Int
        let bytes: [UInt8]
    }

    /// What became of a batch: the integrations whose claim was lost (their chunks are not
    /// kept, nor anything after them), and those whose rows were busy (their chunks wait for the
    /// next batch).
    struct Sent: Sendable {
        var lost: Set<Int64> = []
        var busy: Set<Int64> = []
    }

    /// Writes chunks in one transaction.
    typealias Send = @Sendable ([Chunk]) async throws(StoreError) -> Sent

    /// The most one transaction carries, and one chunk.
    static let batchLimit = 4 * 1024 * 1024
    static let chunkLimit = 1024 * 1024
    /// How long a write waits for more output to join its chunk.
    static let gathering = Duration.milliseconds(20)
    /// How long chunks wait whose integrations' rows were all busy.
    static let busyPause = Duration.milliseconds(5)

    private let send: Send
    private let ready = Mutex<[ObjectIdentifier: DatabaseLogSink]>([:])
    private let wake: AsyncStream<Void>
    private let waker: AsyncStream<Void>.Continuation

    init(send: @escaping Send) {
        self.send = send
        (wake, waker) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func sink(for claim: Claim) -> DatabaseLogSink {
        DatabaseLogSink(claim: claim, shipper: self)
    }

    /// `sink` has bytes to send.
    func schedule(_ sink: DatabaseLogSink) {
        ready.withLock { $0[ObjectIdentifier(sink)] = sink }
        waker.yield()
    }

    /// Sends what the sinks gather until the task is canceled.
    func run() async {
        for await _ in wake {
            if !ready.withLock({ $0.values.contains { $0.closing } }) { await MonotonicClock.system.sleep(for: Self.gathering) }
            await shipReady()
        }
    }

    private func shipReady() async {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            let sinks = ready.withLock { ready in
                defer { ready = [:] }; return Array(ready.values)
            }
            var budget = Self.batchLimit
            let batch = sinks.compactMap { sink -> (DatabaseLogSink, Chunk)? in
                guard budget > 0, let chunk = sink.next(limit: min(budget, Self.chunkLimit)) else { return nil }
                budget -= chunk.bytes.count
                return (sink, chunk)
            }
            guard !batch.isEmpty else { return }
            do {
                let sent = try await send(batch.map(\.1))
                for (sink, chunk) in batch where !sent.busy.contains(chunk.claim.id) { sink.sent(chunk, lost: sent.lost.contains(chunk.claim.id)) }
                delay = .milliseconds(100)
                // Only busy rows: their integrations are writing a step; look again in a moment.
                if sent.busy.count == batch.count { await MonotonicClock.system.sleep(for: Self.busyPause) }
            } catch {
                await MonotonicClock.system.sleep(for: delay)
                delay = min(delay * 2, .seconds(2))
            }
            for sink in sinks where sink.hasPending { ready.withLock { $0[ObjectIdentifier(sink)] = sink } }
        }
    }
}

/// One integration's log on its way to the database through the host's `LogShipper`.
final class DatabaseLogSink: LogSink {
    private struct State {
        var pending: [UInt8] = []
        var offset = 0
        var lost = false
        var closing = false
        /// `close`, waiting for what is pending to be in the database.
        var drained: CheckedContinuation<Void, Never>?
    }

    /// How long `close` waits for the database to take what is pending.
    static let closeLimit = Duration.seconds(30)

    private let claim: Claim
    private let shipper: LogShipper
    private let state = Mutex(State())

    init(claim: Claim, shipper: LogShipper) {
        self.claim = claim
        self.shipper = shipper
    }

    func write(_ bytes: [UInt8]) {
        let scheduled = state.withLock { state in
            guard !state.lost, !bytes.isEmpty else { return false }
            state.pending += bytes
            return true
        }
        if scheduled { shipper.schedule(self) }
    }

    /// Waits until everything written is in the database, or the claim was lost, or the database
    /// stayed away for `closeLimit` (then what is still pending is not kept). Woken by the send
    /// that empties it: the integration's completion follows at once.
    func close() async {
        let waits = state.withLock { state in
            state.closing = true
            return !state.lost && !state.pending.isEmpty
        }
        shipper.schedule(self)
        guard waits else { return }
        // A deadline that holds whatever becomes of the task waiting: the end of an integration
        // canceled while its log is on its way still waits for the log, for so long.
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.closeLimit.seconds) { self.abandon() }
        await withCheckedContinuation { continuation in
            let drained = state.withLock { state in
                guard !state.lost, !state.pending.isEmpty else { return true }
                state.drained = continuation
                return false
            }
            if drained { continuation.resume() }
        }
    }

    /// What is still pending at `close`'s deadline is not kept: the database stayed away.
    private func abandon() {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let drained = state.drained.take() else { return nil }
            state.lost = true
            return drained
        }?.resume()
    }

    var closing: Bool { state.withLock { $0.closing } }

    var hasPending: Bool { state.withLock { !$0.lost && !$0.pending.isEmpty } }

    /// The next chunk to send, of at most `limit` bytes.
    fileprivate func next(limit: Int) -> LogShipper.Chunk? {
        state.withLock { state in
            guard !state.lost, !state.pending.isEmpty else { return nil }
            return LogShipper.Chunk(claim: claim, offset: state.offset, bytes: Array(state.pending.prefix(limit)))
        }
    }

    /// `chunk` is in the database, or its claim was `lost` and nothing more is sent.
    fileprivate func sent(_ chunk: LogShipper.Chunk, lost: Bool) {
        state.withLock { state in
            if lost {
                state.lost = true
                state.pending = []
            } else if state.offset == chunk.offset {
                state.pending.removeFirst(chunk.bytes.count)
                state.offset += chunk.bytes.count
            }
            return state.pending.isEmpty ? state.drained.take() : nil
        }?.resume()
    }
}
