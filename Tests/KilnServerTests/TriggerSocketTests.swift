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
import KilnStore
import KilnTestSupport
import Logging
import Testing

@testable import KilnServer

@Suite("The trigger socket")
struct TriggerSocketTests {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("A request and an answer are one line each; a line that is not one is refused or passed by")
    func lines() {
        #expect(TriggerSocket.Request(received: "trigger app\n") == .trigger("app"))
        #expect(TriggerSocket.Request(received: "trigger app\nmore") == .trigger("app"))
        #expect(TriggerSocket.Request(received: "trigger app") == nil, "a line not yet whole")
        #expect(TriggerSocket.Request(received: "trigger \n") == nil)
        #expect(TriggerSocket.Request(received: "GET / HTTP/1.1\r\n") == nil)
        for answer in [TriggerSocket.Answer.queued(7), .joined(12), .refused("this server has no bot named x")] {
            #expect(TriggerSocket.Answer(line: Substring(answer.line)) == answer)
        }
        #expect(TriggerSocket.Answer.refused("two\nlines").line == "refused two lines")
        #expect(TriggerSocket.Answer(line: "queued seven") == nil)
        #expect(TriggerSocket.Answer(line: "") == nil)
    }

    @Test("Listening: a request queues with the server's store, a bot it lacks and a wrong request are refused, silence is cut off")
    func listening() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\nschedule: {poll: 0}\n")
        let layout = DataDirectory(directory.url(".kiln"))
        let store = try SQLiteStore.open(dataDirectory: layout.path)
        let registry = BotRegistry(directory: directory.url("Bots"), store: store, logger: logger)
        _ = try await registry.reload()
        let socket = TriggerSocket(
            path: layout.triggerSocket, registry: registry, store: store, logger: logger, clock: .system, patience: .seconds(3))
        try await withThrowingTaskGroup { group in
            group.addTask { try await socket.run() }
            try await eventually { FileManager.default.fileExists(atPath: layout.triggerSocket) }

            #expect(await offPool { TriggerSocket.ask("app", socket: layout.triggerSocket) } == .queued(1))
            #expect(await offPool { TriggerSocket.ask("app", socket: layout.triggerSocket) } == .joined(1))
            let queued = try await store.integrations(bot: "app", limit: 10, before: nil)
            #expect(queued.map(\.cause) == [.manual])
            #expect(await offPool { TriggerSocket.ask("nobody", socket: layout.triggerSocket) } == .refused("this server has no bot named nobody"))

            let wrong = await offPool { Self.exchange(layout.triggerSocket, sending: "status\n") }
            #expect(wrong.received == "refused not a request this server knows\n")
            let silent = await offPool { Self.exchange(layout.triggerSocket, sending: nil) }
            #expect(silent.received == "", "a connection that says nothing is closed without an answer")
            // Patience long enough that a loaded machine's event loop reads a request in time (at
            // 300 ms, CI's busiest minute closed two requests unread), short against the 10 s
            // this end waits before it gives up.
            #expect(silent.seconds >= 2.5 && silent.seconds < 8, "closed after the socket's patience, not left open: \(silent.seconds) s")
            group.cancelAll()
        }
        #expect(!FileManager.default.fileExists(atPath: layout.triggerSocket), "the socket goes with the server")
    }

    /// Without a server, or with a file that no server listens on: nil, and the command goes
    /// through the store.
    @Test("No server listening: no answer, at once")
    func nobodyListening() throws {
        let directory = try TemporaryDirectory()
        let layout = DataDirectory(directory.path)
        #expect(TriggerSocket.ask("app", socket: layout.triggerSocket) == nil)
        try directory.write("serve.sock", "")
        #expect(TriggerSocket.ask("app", socket: layout.triggerSocket) == nil)
        #expect(TriggerSocket.socketAddress("/" + String(repeating: "d", count: 120)) == nil, "too long for a socket's address")
    }

    /// Sends `text` (or nothing) on a fresh connection to `path` and reads until the other end
    /// closes; blocks its thread.
    static func exchange(_ path: String, sending text: String?) -> (received: String, seconds: Double) {
        let start = ContinuousClock.now
        guard let address = TriggerSocket.socketAddress(path) else { return ("", 0) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var wait = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return ("", 0) }
        if let text { _ = Array(text.utf8).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) } }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return (String(decoding: received, as: UTF8.self), (ContinuousClock.now - start).seconds)
    }

    /// Runs blocking socket calls on a thread of their own, off Swift's cooperative pool.
    func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    func eventually(_ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}
