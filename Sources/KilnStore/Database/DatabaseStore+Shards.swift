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

extension DatabaseStore {
    public func offerShards(_ jobs: [ShardJob], now: Date) async throws(StoreError) { try await shardStore.offerShards(jobs, now: now) }
    public func claimShard(host: String, bots: Set<String>, of integrationID: Int64?, now: Date) async throws(StoreError) -> ShardState? {
        try await shardStore.claimShard(host: host, bots: bots, of: integrationID, now: now)
    }
    public func releaseShard(integrationID: Int64, part: Int, host: String) async throws(StoreError) {
        try await shardStore.releaseShard(integrationID: integrationID, part: part, host: host)
    }
    @discardableResult
    public func completeShard(integrationID: Int64, part: Int, host: String, outcome: ShardOutcome) async throws(StoreError) -> Bool {
        try await shardStore.completeShard(integrationID: integrationID, part: part, host: host, outcome: outcome)
    }
    public func shards(of integrationID: Int64) async throws(StoreError) -> [ShardState] { try await shardStore.shards(of: integrationID) }
    public func idleExecutors(elsewhereThan host: String) async throws(StoreError) -> Int {
        try await shardStore.idleExecutors(elsewhereThan: host)
    }
    public func withdrawShards(of integrationID: Int64) async throws(StoreError) { try await shardStore.withdrawShards(of: integrationID) }
}
