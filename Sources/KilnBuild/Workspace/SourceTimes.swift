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
import Subprocess

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// The modification times a snapshot's `.build` saw its sources at, given back to the same
/// contents in a new workspace. A fresh checkout gives every file a new time: the file-hashing
/// option spares recompiling them, but SwiftPM still plans the build again and runs each module's
/// driver (swift-argument-parser: 3.6 s where a warm workspace takes 1 s). A tracked file whose
/// blob is the one recorded, and which neither workspace had modified, gets its time back, so the
/// new workspace is what a warm one would be after checking out the same commit; a file the
/// commit changed keeps the checkout's time and is rebuilt.
enum SourceTimes {
    /// Where a pack records them: `BLOB SECONDS NANOSECONDS PATH`, NUL-separated.
    static let record = ".build/.kiln-sources"

    /// Records the tracked files' blobs and times in `directory`'s `.build`.
    static func save(in directory: String) async {
        guard let tracked = await unmodifiedBlobs(in: directory) else { return }
        var records: [UInt8] = []
        for (path, blob) in tracked {
            var info = stat()
            guard lstat(directory + "/" + path, &info) == 0 else { continue }
            records += Array("\(blob) \(info.st_mtim.tv_sec) \(info.st_mtim.tv_nsec) \(path)".utf8) + [0]
        }
        _ = FileManager.default.createFile(atPath: directory + "/" + record, contents: Data(records))
    }

    /// Gives each tracked file of `directory` whose blob is the recorded one its recorded time;
    /// returns how many.
    @discardableResult
    static func restore(in directory: String) async -> Int {
        guard let data = FileManager.default.contents(atPath: directory + "/" + record), let tracked = await unmodifiedBlobs(in: directory) else {
            return 0
        }
        let blobs = Dictionary(tracked) { first, _ in first }
        var restored = 0
        for entry in data.split(separator: 0) {
            let fields = entry.split(separator: UInt8(ascii: " "), maxSplits: 3, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            guard fields.count == 4, let seconds = Int(fields[1]), let nanoseconds = Int(fields[2]), blobs[fields[3]] == fields[0] else { continue }
            let time = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
            let times = [time, time]
            if utimensat(AT_FDCWD, directory + "/" + fields[3], times, AT_SYMLINK_NOFOLLOW) == 0 { restored += 1 }
        }
        return restored
    }

    /// Path → blob of each tracked file as the index has it (`git ls-files -s`), less those the
    /// work tree changed (`git diff-files`); nil when git cannot tell.
    static func unmodifiedBlobs(in directory: String) async -> [(String, String)]? {
        guard let listed = await git(["ls-files", "-s", "-z"], in: directory),
            let changed = await git(["diff-files", "--name-only", "-z"], in: directory)
        else { return nil }
        let modified = Set(changed.split(separator: "\0").map(String.init))
        // `MODE BLOB STAGE\tPATH`
        return listed.split(separator: "\0").compactMap { line in
            guard let tab = line.firstIndex(of: "\t") else { return nil }
            let fields = line[..<tab].split(separator: " ")
            let path = String(line[line.index(after: tab)...])
            guard fields.count == 3, fields[2] == "0", !modified.contains(path) else { return nil }
            return (path, String(fields[1]))
        }
    }

    private static func git(_ arguments: [String], in directory: String) async -> String? {
        do {
            let result = try await Subprocess.run(
                .name("git"), arguments: Arguments(["-C", directory] + arguments),
                environment: .custom(["PATH": "/usr/local/bin:/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"]),
                output: .string(limit: 64 << 20), error: .discarded)
            return result.terminationStatus.isSuccess ? result.standardOutput : nil
        } catch {
            return nil
        }
    }
}
