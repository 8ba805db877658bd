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

/// The one source of the time of day for Kiln's services: the composition root gives each the
/// same clock, so that a test moves time instead of sleeping. `Date()` is read only at the edges
/// (a command's own start, a lock file's stamp). Time that several hosts must agree on
/// (heartbeats, leases) is the database's clock, not this one.
public struct WallClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    /// The system's clock.
    public static let system = WallClock { Date() }

    public var now: Date { read() }
}
