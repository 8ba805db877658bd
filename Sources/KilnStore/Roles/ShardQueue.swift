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

/// The parts of sharded testing steps offered to every host of the database (`ShardJob`):
/// offered by the integration's host, claimed by hosts with an idle executor (the offering
/// host among them), their outcomes recorded and read back. A part whose host went silent (its
/// lease ran out, `HostRegistry`) is claimed again by another; a part of an integration that
/// has ended is claimed by none.
///
/// Threading and errors as `Store` says.
public protocol ShardQueue: Sendable {
    /// Offers `jobs`, parts of one integration's testing step (and forgets the parts of
    /// integrations that have ended).
    func offerShards(_ jobs: [ShardJob], now: Date) async throws(StoreError)

    /// Claims for `host` the oldest part of a running integration of one of `bots` (of
    /// integration `integrationID` alone, when given) that no live host holds and that has no
    /// outcome yet; nil when there is none.
    func claimShard(host: String, bots: Set<String>, of integrationID: Int64?, now: Date) async throws(StoreError) -> ShardState?

    /// Gives back part `part` of integration `integrationID`, which `host` claimed and cannot run
    /// (its commit or pack out of reach): another host, or the integration's own, claims it.
    func releaseShard(integrationID: Int64, part: Int, host: String) async throws(StoreError)

    /// Records the outcome of part `part` of integration `integrationID`, which `host` claimed;
    /// false when its claim no longer holds (another host took it, its host being silent) or the
    /// part was withdrawn.
    @discardableResult
    func completeShard(integrationID: Int64, part: Int, host: String, outcome: ShardOutcome) async throws(StoreError) -> Bool

    /// The parts offered for integration `integrationID`, in order.
    func shards(of integrationID: Int64) async throws(StoreError) -> [ShardState]

    /// How many executors the live hosts other than `host` that serve other hosts have idle:
    /// theirs less the integrations they run and the parts they hold, as the store has it now
    /// (a heartbeat's `busy` is seconds old: a host that just took parts still says it is idle).
    func idleExecutors(elsewhereThan host: String) async throws(StoreError) -> Int

    /// Withdraws the parts of integration `integrationID`: its testing step has ended.
    func withdrawShards(of integrationID: Int64) async throws(StoreError)
}
