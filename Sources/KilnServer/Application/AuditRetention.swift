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
import Logging
import ServiceLifecycle

/// Keeps the audit trail within `audit.retention`: prunes it when the server starts, then every
/// hour. A prune the store refuses is logged and tried again the next hour.
struct AuditRetention: Service {
    let store: any AuditTrail
    let retention: Duration
    let logger: Logger
    let clock: WallClock
    static let interval = Duration.seconds(3600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await prune()
                await clock.monotonic.sleep(for: Self.interval)
            }
        }
    }

    func prune() async {
        do {
            let removed = try await store.pruneAudit(before: clock.now.addingTimeInterval(-retention.seconds))
            if removed > 0 { logger.info("audit trail pruned", metadata: ["removed": "\(removed)", "retention": "\(retention.configSpelling)"]) }
        } catch {
            logger.error("cannot prune the audit trail", metadata: ["error": "\(error)"])
        }
    }
}
