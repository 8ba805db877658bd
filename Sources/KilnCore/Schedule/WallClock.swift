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

/// The one source of time for Kiln's services: the time of day (`now`) and the monotonic time of
/// deadlines, intervals and timers (`monotonic`). The composition root gives each service the
/// same clock, so that a test moves time instead of sleeping; nothing else reads a clock
/// (`make lint`: scripts/lint-clock-reads). Time that several hosts must agree on (heartbeats,
/// leases) is the database's clock, not this one.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date
    /// Deadlines, intervals and timers.
    public let monotonic: MonotonicClock

    public init(monotonic: MonotonicClock = .system, _ read: @escaping @Sendable () -> Date) {
        self.read = read
        self.monotonic = monotonic
    }

    /// The system's clocks.
    public static let system = WallClock { Date() }

    /// The time of day.
    public var now: Date { read() }
}

/// Monotonic time: an instant that only moves forward, and sleeping on it. The system's, or one a
/// test moves by hand (its sleepers wake as it passes their deadlines).
public struct MonotonicClock: Sendable {
    private let read: @Sendable () -> ContinuousClock.Instant
    private let pause: @Sendable (Duration) async -> Bool

    public init(now: @escaping @Sendable () -> ContinuousClock.Instant, sleep: @escaping @Sendable (Duration) async -> Bool) {
        read = now
        pause = sleep
    }

    /// The system's monotonic clock (`ContinuousClock`, which keeps counting while the machine sleeps).
    public static let system = MonotonicClock(now: { ContinuousClock.now }) { duration in
        do {
            try await Task.sleep(for: duration)
            return true
        } catch {
            return false  // canceled: the one way a sleep fails
        }
    }

    public var now: ContinuousClock.Instant { read() }

    /// Sleeps for `duration`, or until the task is canceled: the one way a sleep ends early, which
    /// the loops that call this end on. Returns whether the whole time passed.
    @discardableResult
    public func sleep(for duration: Duration) async -> Bool {
        await pause(duration)
    }

    /// How long since `start`.
    public func since(_ start: ContinuousClock.Instant) -> Duration {
        now - start
    }
}
