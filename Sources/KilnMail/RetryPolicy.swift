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

/// When a mail that could not be delivered is tried again: exponential backoff from `first`,
/// doubling up to `longest`, for at most `giveUpAfter` since the mail was queued.
public struct RetryPolicy: Sendable, Hashable {
    public var first: Duration
    public var longest: Duration
    public var giveUpAfter: Duration

    public init(first: Duration = .seconds(30), longest: Duration = .seconds(3600), giveUpAfter: Duration = .seconds(24 * 3600)) {
        self.first = first
        self.longest = longest
        self.giveUpAfter = giveUpAfter
    }

    /// The next attempt after `attempts` failed ones, or nil when the mail should be given up.
    public func nextAttempt(after attempts: Int, queuedAt: Date, now: Date) -> Date? {
        let seconds = { (duration: Duration) in Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18 }
        let delay = min(seconds(first) * pow(2, Double(max(0, attempts - 1))), seconds(longest))
        let next = now.addingTimeInterval(delay)
        return next.timeIntervalSince(queuedAt) > seconds(giveUpAfter) ? nil : next
    }
}
