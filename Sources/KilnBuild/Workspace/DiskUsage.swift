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

/// What a folder holds on disk (`limits.disk`): the blocks of its files, walked with plain
/// system calls, without following links, each file counted once however many links it has.
enum DiskUsage {
    /// Whether the files beneath `path` take more than `limit` bytes: the walk ends as soon as
    /// they do.
    static func exceeds(_ path: String, _ limit: Int) -> Bool {
        var walk = Walk(limit: limit)
        walk.visit(path)
        return walk.total > limit
    }

    private struct Walk {
        let limit: Int
        var total = 0
        var seen = Set<UInt64>()

        mutating func visit(_ directory: String) {
            guard total <= limit, let stream = opendir(directory) else { return }
            defer { closedir(stream) }
            while total <= limit, let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard name != ".", name != ".." else { continue }
                let child = directory + "/" + name
                var status = stat()
                guard lstat(child, &status) == 0 else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFDIR: visit(child)
                case S_IFREG:
                    if status.st_nlink > 1, !seen.insert(UInt64(status.st_ino)).inserted { continue }
                    total += Int(status.st_blocks) * 512
                default: continue
                }
            }
        }
    }
}
