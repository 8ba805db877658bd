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

import KilnCore
import ServiceLifecycle

/// How the background services that work in rounds (mail, commit statuses) run: a round whenever
/// `wakeup` is yielded to, whenever one of `changes` yields, and at least every `tick` of `clock`,
/// one at a time, until graceful shutdown or cancellation.
enum Rounds {
    static func run(
        tick: Duration, clock: MonotonicClock, wakeups: AsyncStream<Void>, wakeup: AsyncStream<Void>.Continuation, changes: AsyncStream<Void>? = nil,
        round: @escaping @Sendable () async -> Void
    ) async {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while await clock.sleep(for: tick) {
                        wakeup.yield()
                    }
                }
                if let changes {
                    group.addTask {
                        for await _ in changes { wakeup.yield() }
                    }
                }
                wakeup.yield()
                for await _ in wakeups {
                    await round()
                    if Task.isCancelled { break }
                }
                group.cancelAll()
            }
        }
    }
}
