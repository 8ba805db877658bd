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
    /// `{memory: 4GiB, processes: 1024, cpus: 1.5, log: 100MiB}` (`limits:`, `fork-limits:`): the keys given,
    /// each checked; nil, with a diagnostic, when the node is no such mapping.
    func limits(_ node: Node, path: ConfigPath) -> ResourceLimits? {
        guard let fields = mapping(node, path: path, keys: ResourceLimit.allCases.map(\.rawValue)) else { return nil }
        var limits = ResourceLimits()
        limits.memory = size(fields, "memory", least: (16 << 20, "16MiB"), example: "4GiB or 512MiB")
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
        limits.disk = size(fields, "disk", least: (64 << 20, "64MiB"), example: "40GiB")
        limits.log = size(fields, "log", least: (64 << 10, "64KiB"), example: "100MiB")
        return limits
    }

    /// The size `fields[key]` gives (`4GiB`), of `least` bytes or more; nil, with a diagnostic
    /// that gives `example`, when it is not one.
    private func size(_ fields: MappingFields, _ key: String, least: (bytes: Int, text: String), example: String) -> Int? {
        guard let node = fields[key] else { return nil }
        let text = string(node, path: fields.path(key), expected: "a size such as \(example)")
        if let text, let bytes = ArchiveSettings.bytes(text), bytes >= least.bytes { return bytes }
        if text != nil {
            error("'\(key)' must be a size of \(least.text) or more, such as \(example), not '\(text ?? "")'", at: node, path: fields.path(key))
        }
        return nil
    }
}
