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

/// Integration logs as files under a logs directory (`<logs>/<bot>/<number>.log`), written by the
/// build as output arrives and read here.
enum LogFiles {
    static func path(in directory: String, bot: String, number: Int) -> String {
        "\(directory)/\(bot)/\(number).log"
    }

    static func read(_ path: String?, from offset: Int, limit: Int, what: String) throws(StoreError) -> [UInt8]? {
        guard let path, let handle = FileHandle(forReadingAtPath: path) else { return nil }
        // closing a file that was only read loses nothing
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(max(0, offset)))
            return Array(try handle.read(upToCount: max(0, limit)) ?? Data())
        } catch {
            throw .query(what: "reading \(what)", reason: "\(error)")
        }
    }

    static func size(_ path: String?) -> Int? {
        guard let path, let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else { return nil }
        return size.intValue
    }

    /// A line of Kiln's own in a log, set apart from the build's output.
    static func note(_ text: String) -> String {
        "\n*** \(text)\n"
    }

    /// Appends `text` to the log file at `path`, making it if need be; throws what stopped it.
    static func append(_ text: String, to path: String) throws(StoreError) {
        let what = "writing a note to the log \(path)"
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? handle.close() }  // synchronize() below has put the note on disk; closing then loses nothing
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
            try handle.synchronize()
        } catch {
            throw .query(what: what, reason: "\(error.localizedDescription) (is the data directory's logs folder writable, with room?)")
        }
    }
}
