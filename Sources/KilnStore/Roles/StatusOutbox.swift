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

/// What commit statuses are composed from. Each integration's statuses are composed once across
/// hosts (`queueStatuses` is a compare-and-set on the stage last composed) and queued in the one
/// outbox (`Outboxes`, kind `status`; a context's statuses for a commit are one lane).
///
/// Threading and errors as `Store` says.
public protocol StatusOutbox: Sendable {
    /// Integrations of `bots` queued since `since` whose status lags: never composed, composed for
    /// an earlier stage, or for another commit. Oldest first.
    func integrationsAwaitingStatus(bots: [String], since: Date, limit: Int) async throws(StoreError) -> [StatusCandidate]

    /// Records that `candidate`'s status was composed up to `stage` for `commit`, and queues
    /// `statuses`, in one transaction; false (queueing nothing) when another process composed
    /// it meanwhile.
    @discardableResult
    func queueStatuses(
        _ statuses: [CommitStatus], for candidate: StatusCandidate, stage: StatusStage, commit: String, now: Date
    ) async throws(StoreError) -> Bool
}
