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

/// The mail outbox, and what mail is composed from: integrations to notify of and digests.
/// A mail is claimed before it is sent, so that of several hosts only one sends it.
///
/// Threading and errors as `Store` says.
public protocol MailOutbox: Sendable {
    /// Adds a mail to the outbox unless one with its dedupe key is there already; true when added.
    @discardableResult
    func queueMail(_ mail: OutgoingMail, now: Date) async throws(StoreError) -> Bool

    /// Claims queued mails whose next attempt is due, oldest first: each is not due again for
    /// `MailClaim.duration`, so that of several hosts only one sends it; `mailSent` or
    /// `mailFailed` then records the attempt.
    func dueMails(now: Date, limit: Int) async throws(StoreError) -> [QueuedMail]

    /// When the next queued mail is due; nil when the outbox has none queued.
    func nextMailAttempt() async throws(StoreError) -> Date?

    /// Records a mail as delivered (`responseCode`: the server's reply code, where known).
    func mailSent(_ id: Int64, responseCode: Int?, now: Date) async throws(StoreError)

    /// Records a failed attempt with the server's words: tried again at `retryAt`, or failed for
    /// good when it is nil.
    func mailFailed(_ id: Int64, error: String, responseCode: Int?, retryAt: Date?, now: Date) async throws(StoreError)

    /// The outbox for `kiln status`: counts by state and the mails not delivered yet.
    func outbox(limit: Int) async throws(StoreError) -> Outbox

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
