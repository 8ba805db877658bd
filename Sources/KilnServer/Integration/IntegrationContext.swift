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

import KilnCore
import KilnGit
import KilnStore
import Logging

/// What an integration's steps use, as one value: the store roles, the time of day, git, the
/// dependencies' mirrors, the data directory's layout, the server's log and the toolchains this
/// host offers. `IntegrationSequencer` makes it; the steps never call back into their sequencer
/// (a matrix's cells are run through `CellSupervisor`'s "run this cell").
struct IntegrationContext: Sendable {
    let store: any IntegrationQueue & IntegrationRecords & LogsAndAssets
    /// The time of day of steps, completions and quarantines.
    let clock: WallClock
    let mirrors: Mirrors
    /// The mirrors of the packages' dependencies, shared by every bot of the host.
    let dependencies: DependencyMirrors
    let layout: DataDirectory
    /// The server's log: what best-effort work lost (`Logger.bestEffort`).
    let logger: Logger
    /// The names of the toolchains this host offers: `default` and its `toolchains:`.
    let offeredToolchains: [String]
    /// The other hosts of the database, which run test shards this host has no executor for;
    /// nil on SQLite, and for `kiln run`.
    var shards: ShardHosts? = nil
}
