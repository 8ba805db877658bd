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

/// Writes a file that another process may be reading at that moment: a matrix's cells run at
/// once with one HOME, and one cell's SwiftPM reads the `.gitconfig` that another cell writes.
/// Written in place, a reader could find it empty or cut short (git then stops at a bad config
/// line, and the build ends within a second).
public enum FileReplacement {
    /// Replaces the file at `path` with `data`, unless it already holds exactly that; returns
    /// whether it wrote. A reader sees the old file or the new one, whole: the new one is written
    /// beside it and renamed over it. Not synced to the disk: a file a crash cut short differs from
    /// `data` at the next replacement, which writes it again.
    @discardableResult
    public static func replace(_ path: String, with data: Data) throws -> Bool {
        if let existing = FileManager.default.contents(atPath: path), existing == data { return false }
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory.isEmpty ? "." : directory, withIntermediateDirectories: true)
        let written = "\(path).\(getpid()).\(UUID().uuidString.prefix(8))"
        do {
            try data.write(to: URL(fileURLWithPath: written))
            guard rename(written, path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        } catch {
            unlink(written)
            throw error
        }
        return true
    }
}
