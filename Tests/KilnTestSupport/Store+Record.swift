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
import KilnStore

extension Store {
    /// Queues, claims and completes one integration of `bot` as an executor would, for tests that
    /// need history: queued at `start`, claimed a second later, through `steps`, with `log` as its
    /// log, completed `duration` seconds after `start`.
    @discardableResult
    public func record(
        _ bot: String, outcome: IntegrationOutcome, commit: String? = nil, at start: Date = Date(), duration: TimeInterval = 10,
        steps: [IntegrationStep] = [], log: String? = nil
    ) async throws -> Integration {
        let queued = try await enqueue(QueueRequest(bot: bot, cause: .manual, commit: commit, branch: "main"), now: start)
        guard let claimed = try await claim(queued.integration.id, owner: "test", now: start.addingTimeInterval(1)) else {
            throw StoreError.notFound(what: "queued integration #\(queued.integration.number) of '\(bot)' to claim")
        }
        if let log, let sink = logSink(for: claimed) {
            sink.write(Array(log.utf8))
            await sink.close()
        } else if let log, let path = logLocation(bot: bot, number: claimed.number) {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try log.write(toFile: path, atomically: true, encoding: .utf8)
        }
        for (index, step) in steps.enumerated() { try await advance(claimed, to: step, now: start.addingTimeInterval(1 + Double(index + 1) / 100)) }
        return try await complete(claimed, outcome: outcome, now: start.addingTimeInterval(duration))
    }
}
