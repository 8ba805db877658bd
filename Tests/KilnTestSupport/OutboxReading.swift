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

/// The outbox's claims read as each output's own items, for tests that claim as a deliverer does.
extension Outboxes {
    public func dueMails(now: Date, limit: Int) async throws(StoreError) -> [QueuedMail] {
        try await dueDeliveries(.mail, now: now, limit: limit).compactMap(QueuedMail.init)
    }

    public func dueStatuses(now: Date, limit: Int) async throws(StoreError) -> [QueuedStatus] {
        try await dueDeliveries(.status, now: now, limit: limit).compactMap(QueuedStatus.init)
    }

    public func dueReviews(now: Date, limit: Int) async throws(StoreError) -> [QueuedReview] {
        try await dueDeliveries(.review, now: now, limit: limit).compactMap(QueuedReview.init)
    }
}
