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
import KilnStore
import Logging

/// The other hosts of a PostgreSQL database as runners of test shards (`test.shards`). The
/// parts of a testing step that find no idle executor on the integration's host are offered to
/// them (`ShardQueue`), with a pack of the built workspace that the integration's host serves as
/// it serves snapshots; a host with an idle executor claims a part, checks its commit out,
/// unpacks the pack and runs the part with the built test binary (`IntegrationSequencer.runShard`).
/// A part whose host goes silent is claimed again: by another host, or by the integration's own
/// once its executor is free. (On SQLite there are no other hosts: nil.)
struct ShardHosts: Sendable {
    let store: any ShardQueue & HostRegistry
    /// This host's name (`host:`).
    let host: String
    let logger: Logger

    /// How many executors the other live hosts that serve have idle now (`ShardQueue.idleExecutors`).
    func idleElsewhere() async -> Int {
        await logger.bestEffort(
            "reading the other hosts' idle executors", loses: "the test shards run on this host",
            { [store, host] () async throws(StoreError) in try await store.idleExecutors(elsewhereThan: host) }) ?? 0
    }

    /// Where the live host `name` serves other hosts; nil when it is not known to serve.
    func address(of name: String) async -> String? {
        let hosts =
            await logger.bestEffort(
                "reading where \(name) serves", loses: "its pack is not fetched: the part goes back for another host",
                { [store] () async throws(StoreError) in try await store.hosts() }) ?? []
        return hosts.first { $0.name == name && !$0.gone }?.address
    }
}
