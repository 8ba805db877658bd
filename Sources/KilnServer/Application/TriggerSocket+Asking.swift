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

extension TriggerSocket {
    /// What `kiln trigger` asks, as one line: `trigger <bot>`.
    enum Request: Equatable {
        case trigger(String)

        /// Longer than any bot name: a line that is not over by then is not a request.
        static let maximumLength = 1024

        /// The request `received` begins with: its first line, which must be whole.
        init?(received: String) {
            guard let end = received.firstIndex(of: "\n") else { return nil }
            let line = received[..<end]
            guard line.hasPrefix("trigger ") else { return nil }
            let name = line.dropFirst("trigger ".count)
            guard !name.isEmpty else { return nil }
            self = .trigger(String(name))
        }

        var line: String {
            switch self {
            case .trigger(let bot): "trigger \(bot)"
            }
        }
    }

    /// What the server answers, as one line: `queued <number>`, `joined <number>` (the bot had one
    /// queued already), or `refused <why>` (no such bot here, a store error, an unknown request).
    public enum Answer: Equatable, Sendable {
        case queued(Int)
        case joined(Int)
        case refused(String)

        init?(line: Substring) {
            let words = line.split(separator: " ", maxSplits: 1)
            guard let verb = words.first, words.count == 2 else { return nil }
            switch verb {
            case "queued": guard let number = Int(words[1]) else { return nil }; self = .queued(number)
            case "joined": guard let number = Int(words[1]) else { return nil }; self = .joined(number)
            case "refused": self = .refused(String(words[1]))
            default: return nil
            }
        }

        var line: String {
            switch self {
            case .queued(let number): "queued \(number)"
            case .joined(let number): "joined \(number)"
            case .refused(let reason): "refused \(reason.split(whereSeparator: \.isNewline).joined(separator: " "))"
            }
        }
    }

    /// Asks the server listening on the trigger socket at `path` (`DataDirectory.triggerSocket`)
    /// to queue `bot`. Nil when no server listens there (none runs, or it is older, or the path is
    /// too long for a socket), or it said nothing within `timeout`: the command then queues
    /// through the store, where a request the server did take is joined, not doubled. Blocks the
    /// calling thread: for a command.
    public static func ask(_ bot: String, socket path: String, timeout: Int = 10) -> Answer? {
        guard !bot.contains("\n"), let address = socketAddress(path) else { return nil }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return nil }
        let request = Array((Request.trigger(bot).line + "\n").utf8)
        guard request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while !received.contains(UInt8(ascii: "\n")), received.count < Request.maximumLength {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received += buffer[..<count]
        }
        guard let end = received.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        return Answer(line: Substring(decoding: received[..<end], as: UTF8.self))
    }

    /// `path` as a Unix socket's address; nil when it is too long for one (108 bytes).
    static func socketAddress(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }
}
