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
import Synchronization

/// A wall clock a test sets and moves by hand; `wall` is it as Kiln's services read it.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date) {
        current = Mutex(start)
    }

    public var now: Date { current.withLock { $0 } }

    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }

    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }

    /// This clock, for a service's `clock:`.
    public var wall: WallClock { WallClock { self.now } }
}
