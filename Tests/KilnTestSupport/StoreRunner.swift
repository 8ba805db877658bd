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

import KilnStore
import Synchronization

/// Runs stores' background work (`Store.run()`: on PostgreSQL, hearing other hosts' changes and
/// sending logs) for as long as the runner lives, as a server's service group would.
public final class StoreRunner: Sendable {
    private let tasks = Mutex<[Task<Void, Never>]>([])

    public init() {}

    /// Runs `store` until the runner goes away; returns it.
    @discardableResult
    public func run<S: Store>(_ store: S) -> S {
        let task = Task { await store.run() }
        tasks.withLock { $0.append(task) }
        return store
    }

    deinit {
        for task in tasks.withLock({ $0 }) { task.cancel() }
    }
}
