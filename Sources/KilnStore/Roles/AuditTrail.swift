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

/// The audit trail: sign-ins (failed too), tokens made and revoked, queue and cancel from the
/// web, each with its token's name, address and time.
///
/// Threading and errors as `Store` says.
public protocol AuditTrail: Sendable {
    /// Adds `event` to the trail.
    func recordAudit(_ event: AuditEvent) async throws(StoreError)

    /// The events at or after `since` (all when nil), oldest first, at most `limit` of the newest.
    func auditEvents(since: Date?, limit: Int) async throws(StoreError) -> [AuditEvent]

    /// Removes the events older than `before` (`audit.retention`); how many went.
    @discardableResult
    func pruneAudit(before: Date) async throws(StoreError) -> Int
}
