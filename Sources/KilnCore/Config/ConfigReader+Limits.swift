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

import Yams

extension ConfigReader {
    /// `{memory: 4GiB, processes: 1024, cpus: 1.5}` (`limits:`, `fork-limits:`): the keys given,
    /// each checked; nil, with a diagnostic, when the node is no such mapping.
    func limits(_ node: Node, path: ConfigPath) -> ResourceLimits? {
        guard let fields = mapping(node, path: path, keys: ResourceLimit.allCases.map(\.rawValue)) else { return nil }
        var limits = ResourceLimits()
        if let node = fields["memory"] {
            let text = string(node, path: fields.path("memory"), expected: "a size such as 4GiB")
            if let text, let bytes = ArchiveSettings.bytes(text), bytes >= 16 << 20 {
                limits.memory = bytes
            } else if text != nil {
                error("'memory' must be a size of 16MiB or more, such as 4GiB or 512MiB, not '\(text ?? "")'", at: node, path: fields.path("memory"))
            }
        }
        if let node = fields["processes"], let count = integer(node, path: fields.path("processes"), range: 16...1_000_000) {
            limits.processes = count
        }
        if let node = fields["cpus"] {
            let text = string(node, path: fields.path("cpus"), expected: "a number of cores such as 1.5")
            if let text, let cpus = Double(text), cpus >= 0.01, cpus <= 1024 {
                limits.cpus = cpus
            } else if text != nil {
                error("'cpus' must be a number of cores from 0.01, such as 1.5, not '\(text ?? "")'", at: node, path: fields.path("cpus"))
            }
        }
        return limits
    }
}
