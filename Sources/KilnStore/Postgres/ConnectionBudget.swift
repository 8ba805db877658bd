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

/// Each host's share of PostgreSQL's connections, so that a crowd of hosts never fills the
/// server: the server's limit (`SHOW max_connections`), less the slots it reserves for
/// superusers and roles, less a headroom for the command line (`kiln trigger`, `kiln status`,
/// `psql`), split between the live hosts; within 2 (a control connection and one for work) and
/// the host's `database.max-connections`. Each host takes its share again as hosts join and
/// leave (`PostgresEngine`). A host holds two until it has read its first share; the hosts it
/// counts are those whose lease runs and those connected under `applicationName`, so that hosts
/// starting together count each other before any has reported.
public enum ConnectionBudget {
    /// The `application_name` of a server's connections: its process, so that each counts once.
    public static let applicationName = String("kiln serve \(getpid())@\(ProcessInfo.processInfo.hostName)".prefix(63))

    /// The connections a server holds until it has read its share.
    public static let beforeShare = 2

    /// Connections left for commands and tools: a tenth of the server's limit, at least 5.
    public static func headroom(limit: Int) -> Int { max(5, limit / 10) }

    /// How many connections one of `hosts` live hosts may hold.
    public static func share(limit: Int, reserved: Int, hosts: Int, configured: Int) -> Int {
        let usable = limit - reserved - headroom(limit: limit)
        return min(configured, max(2, usable / max(1, hosts)))
    }
}
