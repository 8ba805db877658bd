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

/// A clock a test sets and moves by hand: the time of day, and with `timers` monotonic time too,
/// whose sleepers wake as `advance` passes their deadlines.
public final class ManualClock: Sendable {
    private struct Sleeper {
        var id: Int
        var until: Duration
        var wake: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var date: Date
        /// Monotonic time moved so far.
        var elapsed = Duration.zero
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state: Mutex<State>
    /// The monotonic instant this clock started at.
    private let origin = ContinuousClock.now

    public init(_ start: Date) {
        state = Mutex(State(date: start))
    }

    public var now: Date { state.withLock { $0.date } }

    /// Sets the time of day (monotonic time does not go back).
    public func set(_ date: Date) {
        let seconds = date.timeIntervalSince(now)
        if seconds > 0 { advance(by: seconds) } else { state.withLock { $0.date = date } }
    }

    /// Moves both clocks on by `seconds`, waking the sleepers whose time has come.
    public func advance(by seconds: TimeInterval) {
        let woken = state.withLock { state in
            state.date += seconds
            state.elapsed += .seconds(seconds)
            let elapsed = state.elapsed
            let due = state.sleepers.filter { $0.until <= elapsed }
            state.sleepers.removeAll { $0.until <= elapsed }
            return due
        }
        for sleeper in woken { sleeper.wake.resume(returning: true) }
    }

    /// How many sleep on this clock now: a test waits for a service to be asleep before moving it.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// This clock's time of day, for a service's `clock:`; its timers on the system's clock.
    public var wall: WallClock { WallClock { self.now } }

    /// This clock for the time of day and for timers: a service's sleeps wait for `advance`.
    public var timers: WallClock { WallClock(monotonic: monotonic) { self.now } }

    /// Monotonic time moved by `advance`.
    public var monotonic: MonotonicClock {
        MonotonicClock(now: { self.origin + self.state.withLock { $0.elapsed } }, sleep: { await self.sleep($0) })
    }

    private func sleep(_ duration: Duration) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now: Bool? = state.withLock { state in
                    if Task.isCancelled { return false }
                    if duration <= .zero { return true }
                    state.sleepers.append(Sleeper(id: id, until: state.elapsed + duration, wake: continuation))
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                state.sleepers.firstIndex { $0.id == id }.map { state.sleepers.remove(at: $0) }
            }
            sleeper?.wake.resume(returning: false)
        }
    }
}
