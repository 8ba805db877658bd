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
import KilnTestSupport
import Testing

@Suite("Store: the audit trail")
struct AuditTrailTests {
    @Test(
        "Events come back as recorded, oldest first, from a time on and the newest within a limit; pruning removes the old",
        arguments: Engine.allCases)
    func trail(engine: Engine) async throws {
        let test = try await TestStore(engine)
        let store = test.store
        let events = [
            AuditEvent(at: test.at(1), action: .tokenAdded, token: "alice", detail: "member, every bot; by root on the command line"),
            AuditEvent(at: test.at(2), action: .signInFailed, address: "203.0.113.9", detail: "the sign-in page"),
            AuditEvent(at: test.at(3), action: .signIn, token: "alice", address: "198.51.100.4"),
            AuditEvent(at: test.at(4), action: .queued, token: "alice", address: "198.51.100.4", bot: "app", number: 12),
            AuditEvent(at: test.at(5), action: .canceled, token: "alice", address: "198.51.100.4", bot: "app", number: 12),
            AuditEvent(at: test.at(6), action: .tokenRevoked, token: "alice", detail: "by root on the command line"),
        ]
        for event in events { try await store.recordAudit(event) }
        #expect(try await store.auditEvents(since: nil, limit: 100) == events, "every field as recorded, oldest first")
        #expect(try await store.auditEvents(since: test.at(4), limit: 100) == Array(events[3...]))
        #expect(try await store.auditEvents(since: nil, limit: 2) == Array(events[4...]), "the newest two")
        #expect(try await store.pruneAudit(before: test.at(3)) == 2)
        #expect(try await store.auditEvents(since: nil, limit: 100).map(\.action) == [.signIn, .queued, .canceled, .tokenRevoked])
    }
}
