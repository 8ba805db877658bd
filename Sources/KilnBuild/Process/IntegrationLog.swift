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
import KilnPresentation

/// An integration's log file, `<data>/logs/<bot>/<number>.log`, written as output arrives so that it
/// can be followed live; and, when the store keeps logs itself (PostgreSQL), sent to its `sink` too.
///
/// Secret values, in every form `SecretMask` knows, are replaced by `***` line by line, before
/// anything reaches the file; the same mask is what the steps' parsers read through. Past
/// `limit` bytes (`limits.log`) one "log truncated" line is written and further output is
/// dropped, so that memory does not grow with the output; the step's limits watcher then stops
/// the step (`Workspace.bounded`). Kiln's own lines (headers, notes) are still written, so that
/// the log ends saying what happened.
///
/// A write the file refuses (a full disk, a directory that cannot be made) is not retried: the
/// integration goes on, and `loss` says how much output was lost and why, for the integration's
/// reason and the server's log.
public actor IntegrationLog {
    public nonisolated let path: String
    public nonisolated let limit: Int
    /// The bot's secrets, masked in every line of output before Kiln reads or keeps it.
    public nonisolated let secretMask: SecretMask
    private let handle: FileHandle?
    private let sink: (any LogSink)?
    private var written = 0
    private var truncated = false
    private var partial: [UInt8] = []
    /// Output the file did not take, and the first reason; nil while it took everything.
    public private(set) var loss: LogLoss?

    public static let defaultLimit = ResourceLimits.serverDefaults.log ?? 100 << 20

    public init(path: String, sink: (any LogSink)? = nil, secrets: [String], limit: Int = IntegrationLog.defaultLimit) {
        self.path = path
        self.sink = sink
        self.limit = limit
        self.secretMask = SecretMask(values: secrets)
        var opened: FileHandle?
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            // One open(2), appending to what is there: creating the file through Foundation wrote
            // an empty temporary file, renamed it into place and opened it again.
            let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o666)
            if descriptor >= 0 {
                opened = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            } else {
                loss = LogLoss(path: path, bytes: 0, reason: String(cString: strerror(errno)))
            }
        } catch {
            loss = LogLoss(path: path, bytes: 0, reason: error.localizedDescription)
        }
        if opened == nil, loss == nil { loss = LogLoss(path: path, bytes: 0, reason: "it cannot be opened for writing") }
        handle = opened
    }

    /// A step's header: `=== building: swift build -c debug --build-tests`.
    public func header(_ text: String) {
        flushPartial()
        write(Array("=== \(text)\n".utf8), own: true)
    }

    /// A line of Kiln's own (a result, a reason), marked so it stands out from the build's output.
    public func note(_ text: String) {
        flushPartial()
        write(Array("*** \(text)\n".utf8), own: true)
    }

    /// Output as it arrives; complete lines are masked and written, a partial line waits.
    public func append(_ bytes: some Collection<UInt8>) {
        // Past the cap nothing more is written: skip the work of masking it.
        if truncated { return }
        partial.append(contentsOf: bytes)
        guard let lastNewline = partial.lastIndex(of: UInt8(ascii: "\n")) else {
            // A very long line without a newline is written in pieces.
            if partial.count > 64 * 1024 { flushPartial() }
            return
        }
        let complete = Array(partial[...lastNewline])
        partial.removeSubrange(...lastNewline)
        write(mask(complete))
    }

    /// Writes what is left of a partial line.
    public func flushPartial() {
        guard !partial.isEmpty else { return }
        let rest = partial
        partial = []
        write(mask(rest) + [UInt8(ascii: "\n")])
    }

    /// Writes what is left and waits until the sink has it.
    public func close() async {
        flushPartial()
        try? handle?.synchronize()
        // the log's lines went out with each write; the sink below keeps its own copy
        try? handle?.close()
        await sink?.close()
    }

    /// A note for this host's own copy only, after `close()`: what the store can no longer take
    /// (the integration's result was refused because another host had ended it).
    public func noteLocally(_ text: String) {
        guard let late = FileHandle(forWritingAtPath: path) else { return }
        // the note was written, or its write below says nothing more could be
        defer { try? late.close() }
        _ = try? late.seekToEnd()
        // a late note for this host's copy only: the store already holds the integration's result
        try? late.write(contentsOf: Data("*** \(text)\n".utf8))
    }

    /// Bytes written so far (the truncation line included).
    public var size: Int { written }

    /// Whether output went past `limit` and was cut.
    public var isTruncated: Bool { truncated }

    /// Writes `bytes`: the build's output up to `limit`; Kiln's `own` lines whatever the size.
    private func write(_ bytes: [UInt8], own: Bool = false) {
        if own {
            written += bytes.count
            writeToFile(bytes)
            sink?.write(bytes)
            return
        }
        guard !truncated else { return }
        if written + bytes.count > limit {
            truncated = true
            // the whole lines that fit, then the line that says so
            let room = max(0, limit - written)
            let kept = bytes[..<room].lastIndex(of: UInt8(ascii: "\n")).map { Array(bytes[...$0]) } ?? []
            let line = Array("*** log truncated at \(ByteCount.text(limit)) (limits.log): later output is not kept\n".utf8)
            let end = kept + line
            written += end.count
            writeToFile(end)
            sink?.write(end)
            return
        }
        written += bytes.count
        writeToFile(bytes)
        sink?.write(bytes)
    }

    private func writeToFile(_ bytes: [UInt8]) {
        guard let handle, loss == nil else {
            loss?.bytes += bytes.count
            return
        }
        do {
            try handle.write(contentsOf: Data(bytes))
        } catch {
            loss = LogLoss(path: path, bytes: bytes.count, reason: error.localizedDescription)
        }
    }

    func mask(_ bytes: [UInt8]) -> [UInt8] {
        secretMask.apply(bytes)
    }
}

/// Output an integration's log file did not take.
public struct LogLoss: Sendable, Hashable {
    public var path: String
    public var bytes: Int
    /// The first refusal: "No space left on device".
    public var reason: String

    /// What the integration's reason says of it.
    public var sentence: String {
        "the log file \(path) could not be written (\(reason)): \(ByteCount.text(bytes)) of output lost"
    }
}
