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

/// Bounds on what a step's processes may use (`limits:` in kiln.yml and in a bot file,
/// `fork-limits:` in kiln.yml): each nil where nothing bounds it.
public struct ResourceLimits: Sendable, Hashable {
    /// Bytes of memory the step's processes may hold together.
    public var memory: Int?
    /// How many processes (and threads) may exist at once.
    public var processes: Int?
    /// How many cores' worth of CPU time per second, such as 1.5.
    public var cpus: Double?

    public init(memory: Int? = nil, processes: Int? = nil, cpus: Double? = nil) {
        self.memory = memory
        self.processes = processes
        self.cpus = cpus
    }

    /// kiln.yml's `limits:` when it says nothing: room for a large package's build on a 2-core,
    /// 24 GiB host running two integrations, and a bound a fork bomb or a leak meets long before
    /// the host does.
    public static let serverDefaults = ResourceLimits(memory: 8 << 30, processes: 4096)
    /// kiln.yml's `fork-limits:` when it says nothing: a stranger's code gets half of that, and
    /// one core.
    public static let forkDefaults = ResourceLimits(memory: 4 << 30, processes: 1024, cpus: 1)

    /// These limits, with `defaults` where these say nothing.
    public func over(_ defaults: ResourceLimits) -> ResourceLimits {
        ResourceLimits(memory: memory ?? defaults.memory, processes: processes ?? defaults.processes, cpus: cpus ?? defaults.cpus)
    }

    /// These limits, none above `caps`'s (a fork's pull request: a bot cannot raise them).
    public func capped(by caps: ResourceLimits) -> ResourceLimits {
        func lower<T: Comparable>(_ own: T?, _ cap: T?) -> T? {
            guard let own else { return cap }
            return cap.map { min(own, $0) } ?? own
        }
        return ResourceLimits(memory: lower(memory, caps.memory), processes: lower(processes, caps.processes), cpus: lower(cpus, caps.cpus))
    }

    public var isEmpty: Bool { memory == nil && processes == nil && cpus == nil }
}

/// One of the `limits:` keys.
public enum ResourceLimit: String, Sendable, Hashable, Codable, CaseIterable {
    case memory, processes, cpus
}

/// A limit a step's processes reached, and what they reached: the step was stopped.
public struct LimitReached: Sendable, Hashable, Codable {
    public var limit: ResourceLimit
    /// The limit's value: bytes for memory, a count for processes.
    public var value: Double
    /// What the step was doing (`building`, `testing`, …).
    public var step: IntegrationStep

    public init(limit: ResourceLimit, value: Double, step: IntegrationStep) {
        self.limit = limit
        self.value = value
        self.step = step
    }
}
