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

/// The executors of this host that no integration holds. A testing step borrows them for its
/// shards (`test.shards`), so that nothing else starts on them while the shards run, and gives
/// them back when the shards end.
protocol SpareExecutors: Sendable {
    /// Up to `count` idle executors, the caller's until it gives them back: how many it got.
    func borrow(upTo count: Int) async -> Int
    /// Gives back `count` executors `borrow` lent.
    func giveBack(_ count: Int) async
}

/// `kiln run`'s spare executors: nothing else runs in its process, so every executor of the host
/// but the integration's own is idle.
actor IdleExecutors: SpareExecutors {
    private var idle: Int

    init(_ idle: Int) {
        self.idle = max(0, idle)
    }

    func borrow(upTo count: Int) -> Int {
        let lent = min(idle, max(0, count))
        idle -= lent
        return lent
    }

    func giveBack(_ count: Int) {
        idle += count
    }
}

/// The scheduler lends the executors no integration holds or is promised.
extension Scheduler: SpareExecutors {
    func borrow(upTo count: Int) -> Int {
        let lending = min(max(0, count), max(0, settings.executors - occupied))
        lent += lending
        return lending
    }

    func giveBack(_ count: Int) {
        lent = max(0, lent - count)
        // a queued integration may have waited for them
        wake?.yield()
    }
}
