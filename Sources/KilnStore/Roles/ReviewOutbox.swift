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

/// The comments pull request reviews (`forge.review`) left. A review is composed once, in the
/// transaction that completes its integration (`IntegrationOutcome.review`), so none is lost to a
/// restart, and queued in the one outbox (`Outboxes`, kind `review`; a pull request's reviews
/// are one lane); the comments it left are kept, so that the next push comments only what is
/// new and resolves what went away.
///
/// Threading and errors as `Store` says.
public protocol ReviewOutbox: Sendable {
    /// The comments Kiln left on a pull request, its summary's among them.
    func reviewComments(bot: String, pullRequest: Int) async throws(StoreError) -> [ReviewComment]

    /// Records comments the forge now has (or changed), by fingerprint.
    func recordReviewComments(_ comments: [ReviewComment], bot: String, pullRequest: Int) async throws(StoreError)
}
