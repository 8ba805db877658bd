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
    /// Bytes of output the integration's log keeps: past it the log is cut and the step stopped.
    public var log: Int?

    public init(memory: Int? = nil, processes: Int? = nil, cpus: Double? = nil, log: Int? = nil) {
        self.memory = memory
        self.processes = processes
        self.cpus = cpus
        self.log = log
    }

    /// kiln.yml's `limits:` when it says nothing: room for a large package's build on a 2-core,
    /// 24 GiB host running two integrations, and a bound a fork bomb or a leak meets long before
    /// the host does.
    /// A log of 100 MiB is more than anyone reads; a build printing without end stops there.
    public static let serverDefaults = ResourceLimits(memory: 8 << 30, processes: 4096, log: 100 << 20)
    /// kiln.yml's `fork-limits:` when it says nothing: a stranger's code gets half of that, one
    /// core, and a fifth of the log.
    public static let forkDefaults = ResourceLimits(memory: 4 << 30, processes: 1024, cpus: 1, log: 20 << 20)

    /// These limits, with `defaults` where these say nothing.
    public func over(_ defaults: ResourceLimits) -> ResourceLimits {
        ResourceLimits(
            memory: memory ?? defaults.memory, processes: processes ?? defaults.processes, cpus: cpus ?? defaults.cpus, log: log ?? defaults.log)
    }

    /// These limits, none above `caps`'s (a fork's pull request: a bot cannot raise them).
    public func capped(by caps: ResourceLimits) -> ResourceLimits {
        func lower<T: Comparable>(_ own: T?, _ cap: T?) -> T? {
            guard let own else { return cap }
            return cap.map { min(own, $0) } ?? own
        }
        return ResourceLimits(
            memory: lower(memory, caps.memory), processes: lower(processes, caps.processes), cpus: lower(cpus, caps.cpus),
            log: lower(log, caps.log))
    }

    public var isEmpty: Bool { memory == nil && processes == nil && cpus == nil && log == nil }

    /// Whether any limit needs a control group (or rlimits): all but `log`, which Kiln's reading
    /// of the output bounds.
    public var bindsProcesses: Bool { memory != nil || processes != nil || cpus != nil }
}

/// One of the `limits:` keys.
public enum ResourceLimit: String, Sendable, Hashable, Codable, CaseIterable {
    case memory, processes, cpus, log
}

/// A limit a step's processes reached, and what they reached: the step was stopped.
public struct LimitReached: Sendable, Hashable, Codable {
    public var limit: ResourceLimit
    /// The limit's value: bytes for memory and the log, a count for processes, cores for cpus.
    public var value: Double
    /// What the step was doing (`building`, `testing`, …).
    public var step: IntegrationStep

    public init(limit: ResourceLimit, value: Double, step: IntegrationStep) {
        self.limit = limit
        self.value = value
        self.step = step
    }
}
