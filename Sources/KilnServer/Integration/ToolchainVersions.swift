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
import KilnBuild
import KilnCore

/// Each toolchain's `swift --version`, asked once per `swift` binary (a toolchain replaced in
/// place is asked again) and kept in the data directory: running it costs 50 ms, which every
/// cell of every `kiln run` would pay again (measured: 72 ms of Kiln's own time per cell, 50 of
/// them this, with four toolchains).
actor ToolchainVersions {
    /// What is known of one binary: its size and time when asked, and what it said.
    struct Known: Codable, Equatable {
        var size: Int
        var modified: Double
        var version: String?
    }

    private let file: String
    private var known: [String: Known]?

    init(file: String) {
        self.file = file
    }

    /// The version of the `swift` in `folder`, or the one on Kiln's PATH when nil.
    ///
    /// Asked as every integration starts, so with plain system calls: Foundation's file
    /// attributes read `/etc/passwd` and `/etc/group` for the owner's names, and its symlink
    /// resolution and environment cost as much again (0.17 ms of a trigger's path to its process).
    func version(of folder: String?) async -> String? {
        guard let found = folder.map({ "\($0)/swift" }) ?? Self.onPath("swift") else { return nil }
        // Known by the file it links to (an upgrade replaces that), run by its own name: the
        // driver is what it is by the name it is called.
        guard let resolved = realpath(found, nil) else { return nil }
        let path = String(cString: resolved)
        free(resolved)
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        let modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
        var known = self.known ?? Self.read(file)
        if let entry = known[path], entry.size == size, entry.modified == modified {
            self.known = known
            return entry.version
        }
        let version = await Toolchain.version(of: found)
        known[path] = Known(size: size, modified: modified, version: version)
        self.known = known
        // A cache: a write lost to another process's is asked again, once.
        if let data = try? JSONEncoder().encode(known) {
            let temporary = "\(file).\(ProcessInfo.processInfo.processIdentifier)"
            if FileManager.default.createFile(atPath: temporary, contents: data) { _ = rename(temporary, file) }
        }
        return version
    }

    private static func read(_ file: String) -> [String: Known] {
        guard let data = FileManager.default.contents(atPath: file) else { return [:] }
        return (try? JSONDecoder().decode([String: Known].self, from: data)) ?? [:]
    }

    static func onPath(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
