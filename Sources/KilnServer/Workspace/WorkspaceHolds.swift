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
/// checkout until its snapshot is packed, so that the bot's next integration, which the store may
/// hand to another executor as soon as this one is recorded, does not write the `.build` that
/// is being packed. Waiters are served in order.
actor WorkspaceHolds {
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` once no other holder of the workspace at `directory` is running.
    func holding<T: Sendable>(_ directory: String, _ body: @Sendable () async -> T) async -> T {
        if waiters[directory] == nil {
            waiters[directory] = []
        } else {
            await withCheckedContinuation { waiters[directory, default: []].append($0) }
        }
        let result = await body()
        if var queue = waiters[directory], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[directory] = queue
            next.resume()
        } else {
            waiters[directory] = nil
        }
        return result
    }
}
