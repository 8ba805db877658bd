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
import KilnTestSupport
import Testing

@testable import KilnStore

@Suite("PostgreSQL: each host's share of the connections")
struct ConnectionBudgetTests {
    @Test("The share as hosts join and leave: PostgreSQL's 100, 3 reserved, 4 configured; never more than the server takes")
    func arithmetic() {
        let share = { (hosts: Int) in ConnectionBudget.share(limit: 100, reserved: 3, hosts: hosts, configured: 4) }
        // 100 less 3 reserved, less 10 left to the command line: 87 for the hosts.
        #expect([1, 2, 12, 21].map(share) == [4, 4, 4, 4])
        #expect([22, 24, 29].map(share) == [3, 3, 3], "24 hosts: 72 connections, where 4 each held 96 of 97")
        #expect([30, 43, 60].map(share) == [2, 2, 2], "never below a control connection and one for work")
        #expect([24, 12, 1].map(share) == [3, 4, 4], "hosts leave: the others take more again")
        for hosts in 1...43 { #expect(hosts * share(hosts) + ConnectionBudget.headroom(limit: 100) <= 97, "\(hosts) hosts") }
        #expect(ConnectionBudget.share(limit: 100, reserved: 3, hosts: 1, configured: 3) == 3, "max-connections bounds it")
        #expect(ConnectionBudget.share(limit: 1000, reserved: 3, hosts: 24, configured: 16) == 16)
        #expect(ConnectionBudget.headroom(limit: 20) == 5 && ConnectionBudget.headroom(limit: 300) == 30)
    }

    @Test("A host held to a share of 3 never holds more than 3 connections under 12 transactions at once; given 6, it uses more")
    func laneHoldsItsShare() async throws {
        let url = try await PostgresServer.shared.database()
        let store = try await PostgresStore.open(DatabaseSettings(url: url), connections: 6, logsDirectory: nil)
        defer { store.close() }
        for (budget, most) in [(3, 3), (6, 6)] {
            store.engine.setBudget(budget)
            // Each transaction and a sampler say how many connections they saw open.
            let seen = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        _ = try await store.engine.read("waiting") { db in try db.rows("SELECT pg_sleep(0.1)", []) }
                        return store.engine.holding.open
                    }
                }
                group.addTask {
                    var highest = 0
                    for _ in 0..<20 {
                        highest = max(highest, store.engine.holding.open)
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    return highest
                }
                return try await group.reduce(0, max)
            }
            #expect(seen <= most, "budget \(budget): \(seen) connections open")
            if budget == 6 { #expect(seen > 3, "with room, transactions run at once: \(seen)") }
            #expect(store.engine.holding.allowed == budget)
        }
    }
}
