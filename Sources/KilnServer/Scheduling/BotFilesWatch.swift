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

/// Tells whether the bot files may have changed since the last look, without reading them: an
/// inotify watch on the bots directory (a file written, created, deleted, renamed), on its parent
/// (the directory itself replaced, as a deploy that flips a symlink does) and on the targets of
/// bot files that are symbolic links. Its events are read without blocking, at each tick.
///
/// Looking by reading instead meant a `stat` of every bot file every second on every host: with
/// 432 bots and 24 hosts on one machine, a third of the servers' CPU when idle. What a watch
/// cannot see (a file changed on another machine of a network file system) the scheduler still
/// finds by reading, less often. Owned by the scheduler's actor; nil where inotify is unavailable.
final class BotFilesWatch {
    private let descriptor: Int32
    private let path: String
    private let parent: Int32
    private let name: String
    private var watched: Int32
    private var targets: [Int32] = []
    /// A file in the directory written, created, deleted or renamed, or the directory itself gone.
    /// Not `IN_CLOSE_WRITE`: a write already raised `IN_MODIFY`, and a close can come long after
    /// the change, from any process that inherited the writer's descriptor (a build forked while
    /// an editor or a deploy held the file open), as a change that is not one.
    private static let inside =
        IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF
    /// A symbolic link's target written, or gone.
    private static let target = IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF
    /// The directory's name created, deleted or renamed in its parent.
    private static let named = IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM

    /// How often the files are read anyway, for what the watch cannot see.
    static let fullLook = Duration.seconds(30)

    init?(directory: String) {
        path = URL(fileURLWithPath: directory).standardizedFileURL.path
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        name = (path as NSString).lastPathComponent
        parent = inotify_add_watch(descriptor, (path as NSString).deletingLastPathComponent, UInt32(Self.named))
        watched = inotify_add_watch(descriptor, path, UInt32(Self.inside))
        guard parent >= 0, watched >= 0 else {
            close(descriptor)
            return nil
        }
    }

    deinit {
        close(descriptor)
    }

    /// Watches the directory as it is now (it may have been replaced) and the targets of `files`
    /// that are symbolic links (their contents change there), instead of those watched before:
    /// after each load of the bots.
    func follow(_ files: [String]) {
        let current = inotify_add_watch(descriptor, path, UInt32(Self.inside))
        if current >= 0, current != watched {
            inotify_rm_watch(descriptor, watched)
            watched = current
        }
        for target in targets { inotify_rm_watch(descriptor, target) }
        targets = files.compactMap { file in
            var status = stat()
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return nil }
            let watch = inotify_add_watch(descriptor, file, UInt32(Self.target))
            return watch >= 0 ? watch : nil
        }
    }

    /// Whether anything watched changed since the last call. Never blocks.
    func changed() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            // EAGAIN: nothing more to read. An overflowed queue or another error: say changed.
            guard count > 0 else { return changed || (count < 0 && errno != EAGAIN) }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (watch, mask, length) = buffer.withUnsafeBytes { bytes in
                    (
                        bytes.load(fromByteOffset: offset, as: Int32.self), bytes.load(fromByteOffset: offset + 4, as: UInt32.self),
                        Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let start = offset + MemoryLayout<inotify_event>.size
                // A watch no longer followed (a replaced directory, a former link target) tells
                // nothing about the bot files, only its own removal.
                if mask & UInt32(IN_Q_OVERFLOW) != 0 || watch == watched || targets.contains(watch) {
                    changed = true
                } else if watch == parent, String(decoding: buffer[start..<min(count, start + length)].prefix { $0 != 0 }, as: UTF8.self) == name {
                    changed = true
                }
                offset = start + length
            }
        }
    }
}
