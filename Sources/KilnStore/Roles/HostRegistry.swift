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

/// The hosts sharing a store: heartbeats, leases on the database's clock, and ending the
/// integrations of a host that stopped answering.
///
/// Threading and errors as `Store` says.
public protocol HostRegistry: Sendable {
    /// Records that `host` is alive, on the database's clock; its lease runs from now. Returns
    /// whether `recoverLostHosts` has something to do: a silent host's integrations to end, or a
    /// host gone long enough to forget.
    @discardableResult
    func heartbeat(_ host: HostReport) async throws(StoreError) -> Bool

    /// Every host that has reported, by name.
    func hosts() async throws(StoreError) -> [HostRecord]

    /// Ends the running integrations of hosts whose lease ran out as `internal-error` (naming the
    /// host and when it was last heard) and queues each one's commit again, once; returns the
    /// ended integrations.
    func recoverLostHosts(now: Date) async throws(StoreError) -> [Integration]

    /// Takes or keeps the lease `name` for `holder` for `duration` on the database's clock; true
    /// while `holder` holds it. What must happen once across hosts (polls, schedules) runs on
    /// the holder only.
    func holdLease(_ name: String, holder: String, for duration: Duration) async throws(StoreError) -> Bool

    /// One query's round trip (`SELECT 1`), outside any transaction: whether this host can reach
    /// the store at all, as `/health` asks. Throws what the engine said when it cannot.
    func ping() async throws(StoreError)
}
