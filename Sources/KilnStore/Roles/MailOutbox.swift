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

/// What mail is composed from: integrations to notify of, and digests. Mail is queued and
/// delivered through the one outbox (`Outboxes`, kind `mail`).
///
/// Threading and errors as `Store` says.
public protocol MailOutbox: Sendable {
    /// Completed integrations whose mail has not been composed yet, oldest first.
    func integrationsToNotify(limit: Int) async throws(StoreError) -> [Integration]

    /// Records that the mail of these integrations was composed (and queued).
    func markNotified(_ ids: [Int64], now: Date) async throws(StoreError)

    /// Marks every completed integration notified at once (a server without mail); returns how many.
    @discardableResult
    func markAllNotified(now: Date) async throws(StoreError) -> Int

    /// What a digest says about a bot over `[from, to)`.
    func digest(bot: String, from: Date, to: Date) async throws(StoreError) -> DigestFigures
}
