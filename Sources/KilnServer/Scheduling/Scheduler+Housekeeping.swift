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

/// The scheduler's housekeeping: the dependency mirrors no build uses, and the integrations
/// past their retention.
extension Scheduler {
    /// Removes the dependency mirrors no build has needed for 30 days (a dependency dropped).
    nonisolated func pruneDependencyMirrors() async {
        let removed = await sequencer.dependencies.prune(unusedSince: clock.now.addingTimeInterval(-30 * 86_400))
        if !removed.isEmpty {
            logger.info("dependency mirrors unused for 30 days removed", metadata: ["removed": "\(removed.joined(separator: " "))"])
        }
    }

    nonisolated func applyRetention(bot: String?) async {
        do {
            let expired = try await store.applyRetention(keep: settings.retention, bot: bot)
            if expired > 0 { logger.info("retention", metadata: ["expired": "\(expired)"]) }
        } catch {
            logger.error("cannot apply retention", metadata: ["error": "\(error)"])
        }
    }
}
