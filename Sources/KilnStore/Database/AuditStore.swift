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

/// The audit trail (`AuditTrail`).
struct AuditStore<Engine: StoreEngine>: AuditTrail, StoreRole {
    let engine: Engine
}

extension AuditStore {
    public func recordAudit(_ event: AuditEvent) async throws(StoreError) {
        try await write("recording '\(event.action.rawValue)' in the audit trail", notify: nil) { db in
            try db.execute(
                "INSERT INTO audit_event (at, action, token, address, bot, number, detail) VALUES (?, ?, ?, ?, ?, ?, ?)", event.at,
                event.action.rawValue, event.token, event.address, event.bot, event.number, event.detail)
        }
    }

    public func auditEvents(since: Date?, limit: Int) async throws(StoreError) -> [AuditEvent] {
        let rows = try await readStatement("reading the audit trail") { db in
            try db.rows(
                "SELECT * FROM audit_event WHERE at >= ? ORDER BY at DESC, id DESC LIMIT ?", since ?? Date(timeIntervalSince1970: 0), limit)
        }
        return rows.reversed().map { row in
            AuditEvent(
                at: row["at"], action: AuditEvent.Action(rawValue: row["action"]) ?? .signInFailed, token: row["token"],
                address: row["address"], bot: row["bot"], number: row["number"], detail: row["detail"])
        }
    }

    @discardableResult
    public func pruneAudit(before: Date) async throws(StoreError) -> Int {
        try await write("pruning the audit trail", notify: nil) { db in
            try db.execute("DELETE FROM audit_event WHERE at < ?", before)
        }
    }
}
