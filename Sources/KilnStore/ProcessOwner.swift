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

/// Names the process that runs an integration, so that a later process can tell whether it is gone.
///
/// `host pid start-time`: the start time (from /proc) tells a live process apart from a new one
/// that reused the pid after a reboot or a crash.
public enum ProcessOwner {
    /// This process's owner name on `host` (`host:` in kiln.yml).
    public static func current(host: String) -> String {
        let pid = getpid()
        return "\(word(host)) \(pid) \(startTime(of: pid) ?? "0")"
    }

    /// The host part of `owner`: the name hosts know each other by.
    public static func host(of owner: String) -> String {
        owner.split(separator: " ").first.map(String.init) ?? owner
    }

    /// Whether the process named by `owner` still runs, as seen from `host`. An owner on another
    /// host is assumed alive (this host cannot know: the other hosts' leases tell); an empty or
    /// malformed one is not.
    public static func isAlive(_ owner: String, onHost host: String) -> Bool {
        let parts = owner.split(separator: " ")
        guard parts.count == 3, let pid = Int32(parts[1]) else { return false }
        guard parts[0] == word(host) else { return true }
        return startTime(of: pid) == String(parts[2])
    }

    /// Whether `owner` is a process of `host` that is gone: what this host can tell without a server.
    public static func isGone(_ owner: String, onHost host: String) -> Bool {
        Self.host(of: owner) == word(host) && !isAlive(owner, onHost: host)
    }

    /// `host` as one word of an owner name.
    static func word(_ host: String) -> String { host.replacingOccurrences(of: " ", with: "_") }

    /// Field 22 of /proc/PID/stat: the process's start time in clock ticks since boot.
    static func startTime(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name (which may hold spaces) start at field 3.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? String(fields[19]) : nil
    }
}
