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
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("The log route")
struct LogTests {
    @Test("Path traversal attempts on the log route find nothing")
    func traversal() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        try await web.integrate("app", result: .succeeded, log: "the real log\n")
        try "top secret\n".write(toFile: web.directory.url("data/secret.log"), atomically: true, encoding: .utf8)
        #expect(try await web.get("/bots/app/integrations/1/log").text == "the real log\n")
        let attempts = [
            "/bots/..%2F..%2Fdata/integrations/1/log", "/bots/app/integrations/..%2F..%2Fsecret/log",
            "/bots/app/integrations/1%2F..%2F..%2Fsecret/log",
            "/bots/%2E%2E/integrations/1/log", "/bots/app/integrations/-1/log", "/bots/app/integrations/1.log/log", "/bots/APP/integrations/1/log",
            "/bots/app/integrations/99999999999999999999999/log",
        ]
        for path in attempts {
            let reply = try await web.get(path)
            #expect(reply.status == 404, "\(path)")
            #expect(!reply.text.contains("top secret"), "\(path)")
        }
    }

    @Test("The log of a running integration streams as it grows and ends when the integration does")
    func follow() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app])
        defer { Task { await web.stop() } }
        let queued = try await web.store.enqueue(QueueRequest(bot: "app", cause: .manual, branch: "main"), now: Date())
        let running = try #require(try await web.store.claim(queued.integration.id, owner: "test", now: Date()))
        let path = try #require(web.store.logLocation(bot: "app", number: running.number))
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try "first line\n".write(toFile: path, atomically: true, encoding: .utf8)

        let page = try await web.get("/bots/app/integrations/1")
        #expect(page.text.contains("following while the integration runs"))

        let url = try #require(URL(string: "http://127.0.0.1:\(web.port)/bots/app/integrations/1/log"))
        let stream = StreamingGet(url)
        var lines = stream.lines.makeAsyncIterator()
        #expect(await lines.next() == "first line")
        // Written after the request was answered: it arrives on the same response.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("second line\n".utf8))
        #expect(await lines.next() == "second line")
        try handle.write(contentsOf: Data("last line\n".utf8))
        try handle.close()
        try await web.store.complete(running, outcome: IntegrationOutcome(result: .succeeded), now: Date())
        #expect(await lines.next() == "last line")
        #expect(await lines.next() == nil)
    }
}
