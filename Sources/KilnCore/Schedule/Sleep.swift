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

extension Task where Success == Never, Failure == Never {
    /// Sleeps for `duration`, or until the task is canceled: the one way a sleep fails, which the
    /// loops that call this end on (`Task.isCancelled`). Returns whether the whole time passed.
    @discardableResult
    public static func sleep(unlessCanceled duration: Duration) async -> Bool {
        do {
            try await sleep(for: duration)
            return true
        } catch {
            return false
        }
    }
}
