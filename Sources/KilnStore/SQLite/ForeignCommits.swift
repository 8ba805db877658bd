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

import GRDB
import Synchronization

/// Tells the commits of other processes from this one's, for the inotify watch (`ChangeWatcher`),
/// which sees only that the file changed.
///
/// `PRAGMA data_version` on a connection moves when another connection commits, never for its
/// own commits; this process's pool commits through its one writer connection alone. So on the
/// writer it moves exactly when another process (`kiln trigger` without a server's socket,
/// `kiln token revoke`, `kiln run`) committed. Such a commit may have queued or stopped work or
/// changed access, which the file does not tell: it is heard as `.stop`, which wakes every kind's
/// subscribers. This process's own commits already told their kind when they were made
/// (`SQLiteEngine.write`), and are heard as `.data`. Heard as `.stop`, each commit of an
/// integration starting woke the scheduler to read the stop requests and take the write lock to
/// claim nothing, which delayed that integration's own writes by up to 2 ms. (Access is told
/// of every commit at once, before this look: see `SQLiteStore.open`.)
final class ForeignCommits: Sendable {
    private let writer: any DatabaseWriter
    private let version: Mutex<Int?>

    /// Takes the writer's current version, before the watch starts: a commit made after this is
    /// told apart whenever the watch wakes next. It waits for the writer's queue, whose commits
    /// broadcast: the hub starts its source outside the lock that broadcasts take.
    init(writer: any DatabaseWriter) {
        self.writer = writer
        version = Mutex(try? writer.writeWithoutTransaction { try Self.dataVersion($0) })
    }

    /// Hands `heard` the kind of what changed since the last look: `.stop` when another process
    /// committed (or the version cannot be read), `.data` when only this one did. With
    /// `onlyForeign` (a look after the watcher's events settled, `ChangeWatcher.settle`), hands
    /// it nothing when only this process committed.
    func classify(onlyForeign: Bool = false, _ heard: @escaping @Sendable (ChangeKind) -> Void) {
        writer.asyncWriteWithoutTransaction { db in
            let now = try? Self.dataVersion(db)
            let foreign = self.version.withLock { last in
                defer { last = now }
                return now == nil || last != now
            }
            if foreign || !onlyForeign { heard(foreign ? .stop : .data) }
        }
    }

    private static func dataVersion(_ db: Database) throws -> Int? {
        try Int.fetchOne(db, sql: "PRAGMA data_version")
    }
}
