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

/// Webhook deliveries: each recorded with what it queued or closed, in one transaction.
///
/// Threading and errors as `Store` says.
public protocol WebhookInbox: Sendable {
    /// Records a webhook delivery, queues its integrations and closes its pull requests in one
    /// transaction: a delivery that is answered has its integrations queued (or stopped), and a
    /// queued integration's delivery is recorded.
    func receiveWebhook(
        _ delivery: WebhookDelivery, queue requests: [QueueRequest], close closings: [PullRequestClosing], now: Date
    ) async throws(StoreError) -> WebhookReceipt

    /// The latest deliveries, newest first.
    func webhookDeliveries(limit: Int) async throws(StoreError) -> [WebhookDelivery]
}
