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

/// Which of this host's workspaces are in use: an integration holds its workspace from its
/// checkout until its snapshot is packed (which may end after its result, `SnapshotPacker`), so
/// that the bot's next integration, which the store may hand to another executor as soon as this
/// one is recorded, does not write the `.build` that is being packed. Waiters are served in order.
actor WorkspaceHolds {
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Returns once no other holder of the workspace at `directory` holds it, holding it until
    /// `release(_:)`.
    func acquire(_ directory: String) async {
        if waiters[directory] == nil {
            waiters[directory] = []
        } else {
            await withCheckedContinuation { waiters[directory, default: []].append($0) }
        }
    }

    /// Hands the workspace at `directory` to its next waiter, if any.
    func release(_ directory: String) {
        if var queue = waiters[directory], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[directory] = queue
            next.resume()
        } else {
            waiters[directory] = nil
        }
    }
}
