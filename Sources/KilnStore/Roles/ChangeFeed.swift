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

/// What changed, from this process or any other host: wake-ups for caches, schedulers and
/// log followers, and the background work that hears other hosts (`run`).
///
/// Threading and errors as `Store` says.
public protocol ChangeFeed: Sendable {
    /// Does the store's background work until the task is canceled: on PostgreSQL, hearing the
    /// other hosts' changes and sending this host's logs. Operations work without it; `changes()`
    /// from other hosts and logs kept in the database need it.
    func run() async

    /// A new subscription to the store's changes, from this process or any other: each element
    /// says "something changed, look again". The page cache drops stale pages on it. A busy
    /// subscriber hears of several changes once. It ends when the subscriber stops iterating.
    func changes() -> AsyncStream<Void>

    /// Like `changes()`, for changes of the queue only (queued, coalesced, completed, asked to
    /// stop, bots loaded): idle schedulers wake on them to claim, and not on every claim, step,
    /// log or mail of every host.
    func queueChanges() -> AsyncStream<Void>

    /// Like `changes()`, for requests that running integrations stop only (`requestCancel`, a
    /// superseding or closing request, a recovery): busy schedulers wake on them to look at
    /// `stopRequests`.
    func stopChanges() -> AsyncStream<Void>

    /// A change of an integration's log: wakes followers of live logs (on every host).
    func logChanges() -> AsyncStream<Void>
}
