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

/// Lets whoever reads a step's output end the step early (`test.fail-fast` at the first failing
/// test): `stop()` from any task or line callback; the runner waits for `settle` (what the process
/// still has to write, such as the record of the failure that stopped it), then stops the process
/// group, and the step ends as `ProcessEnd.stopped`. Asking twice is asking once.
public final class EarlyStop: Sendable {
    private let signal: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    let settle: @Sendable () async -> Void

    public init(settle: @escaping @Sendable () async -> Void = {}) {
        (signal, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.settle = settle
    }

    public func stop() {
        continuation.yield()
        continuation.finish()
    }

    /// Returns once `stop()` was called and the process settled, or when the waiting task is canceled.
    func requested() async {
        for await _ in signal {
            await settle()
            return
        }
    }
}
