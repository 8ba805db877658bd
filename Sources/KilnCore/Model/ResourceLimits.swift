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
    /// Bytes the workspace (the checkout and `.build`) may hold, and the sandbox's /tmp.
    public var disk: Int?
    /// Bytes of output the integration's log keeps: past it the log is cut and the step stopped.
    public var log: Int?

    public init(memory: Int? = nil, processes: Int? = nil, cpus: Double? = nil, disk: Int? = nil, log: Int? = nil) {
        self.memory = memory
        self.processes = processes
        self.cpus = cpus
        self.disk = disk
        self.log = log
    }

    /// kiln.yml's `limits:` when it says nothing: room for a large package's build on a 2-core,
    /// 24 GiB host running two integrations, and a bound a fork bomb or a leak meets long before
    /// the host does.
    /// 40 GiB holds the largest packages' `.build`s many times over; a log of 100 MiB is more
    /// than anyone reads, and a build printing without end stops there.
    public static let serverDefaults = ResourceLimits(memory: 8 << 30, processes: 4096, disk: 40 << 30, log: 100 << 20)
    /// kiln.yml's `fork-limits:` when it says nothing: a stranger's code gets half of that, one
    /// core, a quarter of the disk and a fifth of the log.
    public static let forkDefaults = ResourceLimits(memory: 4 << 30, processes: 1024, cpus: 1, disk: 10 << 30, log: 20 << 20)

    /// These limits, with `defaults` where these say nothing.
    public func over(_ defaults: ResourceLimits) -> ResourceLimits {
        ResourceLimits(
            memory: memory ?? defaults.memory, processes: processes ?? defaults.processes, cpus: cpus ?? defaults.cpus,
            disk: disk ?? defaults.disk, log: log ?? defaults.log)
    }

    /// These limits, none above `caps`'s (a fork's pull request: a bot cannot raise them).
    public func capped(by caps: ResourceLimits) -> ResourceLimits {
        func lower<T: Comparable>(_ own: T?, _ cap: T?) -> T? {
            guard let own else { return cap }
            return cap.map { min(own, $0) } ?? own
        }
        return ResourceLimits(
            memory: lower(memory, caps.memory), processes: lower(processes, caps.processes), cpus: lower(cpus, caps.cpus),
            disk: lower(disk, caps.disk), log: lower(log, caps.log))
    }

    public var isEmpty: Bool { memory == nil && processes == nil && cpus == nil && disk == nil && log == nil }
}

/// One of the `limits:` keys.
public enum ResourceLimit: String, Sendable, Hashable, Codable, CaseIterable {
    case memory, processes, cpus, disk, log
}

/// A limit a step's processes reached, and what they reached: the step was stopped.
public struct LimitReached: Sendable, Hashable, Codable {
    public var limit: ResourceLimit
    /// The limit's value: bytes for memory, disk and the log, a count for processes, cores for cpus.
    public var value: Double
    /// What the step was doing (`building`, `testing`, …).
    public var step: IntegrationStep

    public init(limit: ResourceLimit, value: Double, step: IntegrationStep) {
        self.limit = limit
        self.value = value
        self.step = step
    }
}
