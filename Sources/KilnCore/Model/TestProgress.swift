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

/// What a running integration's tests have shown so far: how many ended, how many of them
/// failed. Recorded as passes end (`test.order: failed-first` runs the likely failures first),
/// so that the commit status and the page say "failing" before the whole suite has run.
public struct TestProgress: Sendable, Hashable, Codable {
    public var tests: Int
    public var failed: Int

    public init(tests: Int, failed: Int) {
        self.tests = tests
        self.failed = failed
    }
}
