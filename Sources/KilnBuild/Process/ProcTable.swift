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

/// The process table as `/proc` shows it, read with one reusable buffer and no copies: after
/// every step, each host scans it for the step's leftovers, so that scan must cost little even
/// with hundreds of processes (many hosts' builds on one machine, or one busy host).
struct ProcTable {
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Every process's id, from `/proc`'s numeric entries.
    static func pids() -> [pid_t] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var pids: [pid_t] = []
        while let entry = readdir(directory) {
            let pid = withUnsafeBytes(of: entry.pointee.d_name) { name -> pid_t? in
                var value: pid_t = 0
                for byte in name {
                    if byte == 0 { break }
                    guard byte >= 48, byte <= 57 else { return nil }
                    value = value * 10 + pid_t(byte - 48)
                }
                return value > 0 ? value : nil
            }
            if let pid { pids.append(pid) }
        }
        return pids
    }

    /// Calls `body` with the bytes of `/proc/<pid>/<file>` (up to the buffer's size); false when
    /// the process is gone or the file unreadable.
    mutating func read<T>(_ pid: pid_t, _ file: String, _ body: (UnsafeRawBufferPointer) -> T) -> T? {
        let descriptor = open("/proc/\(pid)/\(file)", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        return buffer.withUnsafeMutableBytes { bytes -> T? in
            guard let base = bytes.baseAddress else { return nil }
            var count = 0
            while count < bytes.count {
                let got = Foundation.read(descriptor, base + count, bytes.count - count)
                if got < 0 { return nil }
                if got == 0 { break }
                count += got
            }
            return body(UnsafeRawBufferPointer(rebasing: bytes[..<count]))
        }
    }

    /// Whether the NUL-separated `environ` holds `variable` (`NAME=value`) as a whole entry.
    static func environment(_ environ: UnsafeRawBufferPointer, holds variable: [UInt8]) -> Bool {
        guard let base = environ.baseAddress else { return false }
        var start = 0
        while start < environ.count {
            let end = environ[start...].firstIndex(of: 0) ?? environ.count
            if end - start == variable.count, memcmp(base + start, variable, variable.count) == 0 { return true }
            start = end + 1
        }
        return false
    }

    /// The session of a process from its `stat` (the fourth field after the command name).
    static func session(_ stat: UnsafeRawBufferPointer) -> pid_t? {
        guard let close = stat.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        var field = 0
        var value: pid_t = 0
        var index = close + 2
        while index < stat.count {
            let byte = stat[index]
            if byte == UInt8(ascii: " ") {
                if field == 3 { return value }
                field += 1
                value = 0
            } else if field == 3, byte >= 48, byte <= 57 {
                value = value * 10 + pid_t(byte - 48)
            }
            index += 1
        }
        return nil
    }
}
