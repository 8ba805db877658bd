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

/// Serialises work per key: one holder per key at a time, different keys in parallel.
actor KeyedLock {
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    /// Runs `body` once no other holder of `key` is running.
    func withLock<T: Sendable>(_ key: String, _ body: @Sendable () async throws(GitError) -> T) async throws(GitError) -> T {
        await acquire(key)
        let result: Result<T, GitError>
        do throws(GitError) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        release(key)
        return try result.get()
    }

    private func acquire(_ key: String) async {
        if waiters[key] == nil {
            waiters[key] = []
            return
        }
        await withCheckedContinuation { waiters[key, default: []].append($0) }
    }

    /// Hands the key to the next waiter, if any, without letting a newcomer overtake it.
    private func release(_ key: String) {
        guard var queue = waiters[key], !queue.isEmpty else {
            waiters[key] = nil
            return
        }
        let next = queue.removeFirst()
        waiters[key] = queue
        next.resume()
    }
}
