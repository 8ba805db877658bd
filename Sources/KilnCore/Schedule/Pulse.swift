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

/// When a loop last turned, on the monotonic clock: the scheduler beats it at every turn of its
/// dispatch loop (at least once a tick), and `/health` reads how long it has been silent. A loop
/// that stopped turning (waiting on something that never answers) shows here, though the process
/// still answers HTTP.
public final class Pulse: Sendable {
    private let last: Mutex<ContinuousClock.Instant>

    /// A pulse that counts as beaten at `now`: a loop that has not started yet is not stalled.
    public init(now: ContinuousClock.Instant) {
        last = Mutex(now)
    }

    /// The loop turned at `now`.
    public func beat(at now: ContinuousClock.Instant) {
        last.withLock { $0 = max($0, now) }
    }

    /// How long the loop has been silent at `now`.
    public func silence(at now: ContinuousClock.Instant) -> Duration {
        now - last.withLock { $0 }
    }
}
