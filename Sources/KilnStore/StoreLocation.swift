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
import Logging

/// Opens the store a server is configured with; the one place that knows which engines exist.
public enum StoreLocation {
    /// Who opens the store: what it may hold of a shared database.
    public enum User: Sendable {
        case server
        case foreground
        case command
    }

    /// The store of `config`: the PostgreSQL database of `database:` when set, with this host's
    /// logs in its data directory; else the embedded SQLite database of the data directory. Either
    /// is migrated before it is returned. A server holds up to `database.max-connections` to
    /// PostgreSQL, `kiln run` two (its work and its heartbeat), any other command one. `logger`
    /// is PostgreSQL's (by default "kiln.store"); SQLite logs nothing.
    public static func open(_ config: ServerConfig, for user: User = .command, logger: Logger? = nil) async throws(StoreError)
        -> any Store
    {
        let layout = config.dataDirectory
        if let database = config.database {
            let connections =
                switch user {
                case .server: database.maxConnections
                case .foreground: 2
                case .command: 1
                }
            let logger = logger ?? Logger(label: "kiln.store")
            return try await PostgresStore.open(database, connections: connections, logsDirectory: layout.logs, logger: logger)
        }
        let oneConnection = if case .command = user { true } else { false }
        return try SQLiteStore.open(path: layout.database, logsDirectory: layout.logs, oneConnection: oneConnection)
    }
}
