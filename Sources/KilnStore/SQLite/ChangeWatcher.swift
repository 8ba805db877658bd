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
import Synchronization

/// Tells when the store's file changes — any commit, from any process — without polling it.
///
/// SQLite in WAL mode appends every commit to `<db>-wal`; an inotify watch on the database's
/// directory sees those writes. A thread of its own blocks in poll(2) (waking once a second to
/// notice `stop()`), so an idle server spends no CPU on watching.
///
/// A commit's writes to the WAL come before it is visible: the committer then updates the WAL's
/// index in `-shm`, through memory that inotify does not see. A look made at the last write's
/// event can come first and find nothing new, and no event follows (another process's commit,
/// its writer preempted in between, went unheard: a queued integration waited for the next
/// change). So once the events have been quiet for `settle[0]`, and again for each later delay,
/// `onSettled` looks again.
public final class ChangeWatcher: ChangeSource, @unchecked Sendable {
    /// The quiet after a burst of events at which `onSettled` is called, each in turn.
    static let settle: [Int32] = [50, 1000]

    // `descriptor` is written once in init and read by the watching thread; `stopped` and
    // `closed` are guarded by `lock`.
    private let descriptor: Int32
    private let lock = NSLock()
    private var stopped = false
    private var closed = false
    /// Set from the moment the thread sees events until it has told them (`hasUntoldChanges`).
    private let telling = Atomic<Bool>(false)

    /// Watches the directory holding `databasePath`; calls `onChange` (on the watcher's thread)
    /// after writes to the database or its WAL, and `onSettled` when they have been quiet for a
    /// while (`settle`). Nil when inotify is unavailable.
    public init?(databasePath: String, onChange: @escaping @Sendable () -> Void, onSettled: @escaping @Sendable () -> Void = {}) {
        let directory = (databasePath as NSString).deletingLastPathComponent
        let name = (databasePath as NSString).lastPathComponent
        let descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)
        guard inotify_add_watch(descriptor, directory, mask) >= 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        Thread.detachNewThread { [self] in
            self.watch(name: name, onChange: onChange, onSettled: onSettled)
        }
    }

    public func stop() {
        lock.withLock { stopped = true }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Whether events wait in the kernel's queue, or are being read and told. A commit's write
    /// queues its event before the write returns; so once a committer has returned, either this
    /// is true or the change was told. The queue is asked first: an event it no longer holds was
    /// taken by the thread, which says so (`telling`) until it has told it.
    var hasUntoldChanges: Bool {
        lock.withLock {
            guard !closed else { return false }
            var queued: Int32 = 0
            return ioctl(descriptor, UInt(FIONREAD), &queued) != 0 || queued > 0 || telling.load(ordering: .sequentiallyConsistent)
        }
    }

    private func watch(name: String, onChange: @Sendable () -> Void, onSettled: @Sendable () -> Void) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        // The settling looks still to make since the last relevant event.
        var settling = ArraySlice<Int32>()
        while !isStopped {
            var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptorSet, 1, settling.first ?? 1000)
            guard ready > 0 else {
                if ready == 0, !settling.isEmpty {
                    settling = settling.dropFirst()
                    onSettled()
                }
                continue
            }
            telling.store(true, ordering: .sequentiallyConsistent)
            defer { telling.store(false, ordering: .sequentiallyConsistent) }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { continue }
            // Events name files in the directory: only the database and its WAL matter. Not the
            // `-shm` index, which every read writes to (its read marks): a change heard there
            // would make each read look like a change, and a page rebuilt on a change reads.
            var offset = 0
            var relevant = false
            while offset + MemoryLayout<inotify_event>.size <= count {
                let length = buffer.withUnsafeBytes { $0.load(fromByteOffset: offset + 12, as: UInt32.self) }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let nameBytes = buffer[nameStart..<min(count, nameStart + Int(length))].prefix { $0 != 0 }
                let file = String(decoding: nameBytes, as: UTF8.self)
                if file == name || file == name + "-wal" { relevant = true }
                offset = nameStart + Int(length)
            }
            if relevant {
                onChange()
                settling = Self.settle[...]
            }
        }
        lock.withLock {
            close(descriptor)
            closed = true
        }
    }
}
