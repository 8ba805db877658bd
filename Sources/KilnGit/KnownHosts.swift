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

/// The ssh host keys Kiln has seen, in `<data>/mirrors/known_hosts`: trusted on first use, and a
/// host whose key later changes is refused (as OpenSSH's `StrictHostKeyChecking accept-new`).
///
/// Lines are `host[:port] SHA256:<base64 of the key's SHA-256>`. To trust a new key after a
/// server's key really changed, delete the host's line.
///
/// A file that cannot be read, or a new key that cannot be recorded, refuses the connection: the
/// first would trust any key (and used to rewrite the file without the keys it could not read),
/// the second would trust a key that nothing remembers, so a later change would go unseen.
struct KnownHosts: Sendable {
    let path: String

    /// Serialises reading and appending the file across libgit2's threads.
    private static let lock = Mutex(())

    enum Verdict: Equatable {
        case known, added, changed(expected: String)
        /// The file exists and cannot be read, or the new key cannot be added to it.
        case unusable(String)
    }

    func check(host: String, fingerprint: String) -> Verdict {
        Self.lock.withLock { _ in
            let bytes: Data
            do {
                bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
                bytes = Data()
            } catch {
                return .unusable("cannot read \(path): \(error.localizedDescription)")
            }
            // Lines that are not UTF-8 are not ours; they cannot name a host, and stay as they are.
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let fields = line.split(separator: " ", maxSplits: 1)
                guard fields.count == 2, fields[0] == host else { continue }
                return fields[1] == fingerprint ? .known : .changed(expected: String(fields[1]))
            }
            let separator = bytes.isEmpty || bytes.last == UInt8(ascii: "\n") ? "" : "\n"
            do {
                try append(Data("\(separator)\(host) \(fingerprint)\n".utf8))
            } catch {
                return .unusable("cannot record the ssh host key of \(host) in \(path): \(error.localizedDescription)")
            }
            return .added
        }
    }

    /// Adds `line` at the end of the file, creating it and its directory if need be; the lines
    /// already there are never written again.
    private func append(_ line: Data) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        // synchronize() below has put the line on disk; closing then loses nothing
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: line)
        try handle.synchronize()
    }
}
