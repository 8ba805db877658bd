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
import KilnCore

/// One data directory, one `kiln serve`: the server holds an exclusive `flock` on
/// `<data>/serve.lock` for its whole life, and writes into it who it is. The kernel lets go of the
/// lock when the process ends, however it ends, so a stopped server never leaves the directory
/// locked. `kiln trigger`, `kiln status` and `kiln run` take no lock: they may run beside a server;
/// `kiln migrate` takes it, so that no server starts on the directory while it copies.
public final class ServeLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes the lock of `layout` for a server, or says which server holds it.
    static func acquire(_ layout: DataDirectory, host: String, listen: ListenAddress) throws(ServerSetupError) -> ServeLock {
        try acquire(
            layout, holder: "kiln serve (pid \(getpid()) on \(host), listening on \(listen), since \(WallClock.system.now.formatted(.iso8601)))")
    }

    /// Takes the lock of `layout`, saying who holds it (`holder`), or says which server holds it.
    public static func acquire(_ layout: DataDirectory, holder: String) throws(ServerSetupError) -> ServeLock {
        let path = layout.serveLock
        // opening the lock file below fails with its own error when the folder is missing
        try? FileManager.default.createDirectory(atPath: layout.path, withIntermediateDirectories: true)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .dataDirectory("cannot create \(path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(descriptor)
            throw .dataDirectory(
                "the data directory \(layout.path) is in use by \(holder.isEmpty ? "another kiln" : holder): stop it, or give this one its own data directory (--data)"
            )
        }
        let holder = holder + "\n"
        _ = ftruncate(descriptor, 0)
        _ = holder.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return ServeLock(descriptor: descriptor)
    }

    deinit {
        close(descriptor)
    }
}
