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

/// The groups a Kiln that ended without removing them left beside this host's own.
extension ControlGroups {
    /// The directories in which this host makes its groups.
    var parents: [String] {
        switch self {
        case .v2(let parent): [parent]
        case .v1(let memory, let pids, let cpu): [memory, pids, cpu].compactMap { $0 }
        case .rlimits: []
        }
    }

    /// Removes the groups a Kiln that has ended left (one stopped with SIGKILL, or by a crash):
    /// `kiln-<pid>-<n>` beside this host's own, whose process is gone. What still runs in one
    /// belonged to an integration that recovery ends; it is stopped first. The names removed.
    @discardableResult
    public func removeLeftGroups() async -> [String] {
        var removed: [String] = []
        for parent in parents {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
            for name in names {
                let parts = name.split(separator: "-")
                guard parts.count == 3, parts[0] == "kiln", let pid = pid_t(parts[1]), Int(parts[2]) != nil, pid != getpid() else { continue }
                // a pid that answers is a live Kiln's (or, reused, another process's): its group is left alone
                guard sendSignal(0, to: pid) != 0, errno == ESRCH else { continue }
                let left = await ControlGroup(limits: ResourceLimits(), directories: ["\(parent)/\(name)"]).remove()
                if left.isEmpty { removed.append(name) }
            }
        }
        return removed
    }
}
