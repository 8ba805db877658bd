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

/// Parts of pages that never change once made, kept for the next page that shows them: a
/// completed integration's log tail as HTML (`LogHTML`), a file of a repository at a commit.
/// Reading a coloured tail's escapes and a failure's file from the mirror anew cost a page more
/// than the rest of it (measured: 490 pages a second before either, 265 with both, for a log
/// whose every line is coloured). The newest `capacity` are kept.
actor Kept<Value: Sendable> {
    private var entries: [String: Value] = [:]
    private var order: [String] = []
    let capacity: Int

    init(capacity: Int = 64) {
        self.capacity = capacity
    }

    func value(for key: String) -> Value? { entries[key] }

    func keep(_ value: Value, for key: String) {
        guard entries.updateValue(value, forKey: key) == nil else { return }
        order.append(key)
        if order.count > capacity { entries[order.removeFirst()] = nil }
    }
}
