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

/// A file or folder of an earlier run that must go before this run starts, and would not: a
/// workspace `clean` is due to wipe, the last run's test events or benchmark baseline. Left in
/// place it would make a clean build not clean, or be read as this run's results, so the run
/// stops instead, saying what to remove.
public struct StaleFile: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public var description: String {
        "cannot remove \(path), left by an earlier run: \(reason) (is it immutable, or on a read-only file system? remove it by hand)"
    }

    /// Removes `path` when it exists; one already gone is no failure.
    public static func remove(_ path: String) throws(StaleFile) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw StaleFile(path: path, reason: (error as NSError).localizedDescription)
        }
    }
}
