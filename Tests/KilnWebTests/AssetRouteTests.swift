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

@Suite("Assets over HTTP")
struct AssetRouteTests {
    @Test("An asset downloads whole and in ranges with its ETag and file name; latest follows accepted results only; the API and page list it")
    func download() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.app + "\narchive: {products: [app], on: [succeeded]}\n"])
        defer { Task { await web.stop() } }
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }
        let file = web.directory.url("upload.tar.gz")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let asset = Asset(name: "app.tar.gz", size: bytes.count, sha256: "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8")
        func archived(_ result: IntegrationResult) async throws {
            _ = try await web.store.enqueue(QueueRequest(bot: "app", cause: .manual, commit: "abc1234", branch: "main"), now: Date())
            let claim = try #require(try await web.store.claimNext(owner: "test", now: Date()))
            try await web.store.storeAsset(asset, from: file, for: claim)
            try await web.store.complete(claim, outcome: IntegrationOutcome(result: result), now: Date())
        }
        try await archived(.succeeded)
        try await archived(.warnings)

        let path = "/bots/app/integrations/1/assets/app.tar.gz"
        let whole = try await web.get(path, headers: [:])
        #expect(whole.status == 200 && whole.body == Data(bytes))
        #expect(whole.headers["content-length"] == String(bytes.count))
        #expect(whole.headers["etag"] == "\"\(asset.sha256)\"")
        #expect(whole.headers["content-disposition"] == "attachment; filename=\"app-1.tar.gz\"")
        #expect(whole.contentType == "application/gzip")

        let part = try await web.get(path, headers: ["Range": "bytes=1048570-1048589"])
        #expect(part.status == 206 && part.body == Data(bytes[1_048_570..<1_048_590]))
        #expect(part.headers["content-range"] == "bytes 1048570-1048589/\(bytes.count)")
        let tail = try await web.get(path, headers: ["Range": "bytes=-5"])
        #expect(tail.status == 206 && tail.body == Data(bytes.suffix(5)))
        #expect(try await web.get(path, headers: ["Range": "bytes=9000000-"]).status == 416)
        #expect(try await web.get(path, headers: ["If-None-Match": "\"\(asset.sha256)\""]).status == 304)
        #expect(try await web.get("/bots/app/integrations/1/assets/other.tar.gz", headers: [:]).status == 404)
        #expect(try await web.get("/bots/app/integrations/9/assets/app.tar.gz", headers: [:]).status == 404)

        // #2 ended `warnings`, which this bot's archive.on does not accept: latest is #1.
        let latest = try await web.get("/bots/app/latest/app.tar.gz", headers: [:])
        #expect(latest.status == 200 && latest.headers["content-disposition"] == "attachment; filename=\"app-1.tar.gz\"")
        #expect(try await web.get("/bots/app/latest/other.tar.gz", headers: [:]).status == 404)
        #expect(try await web.get("/bots/nobody/latest/app.tar.gz", headers: [:]).status == 404)

        let api = try #require(try await web.get("/api/bots/app/integrations/1").json() as? [String: Any])
        let listed = try #require((api["assets"] as? [[String: Any]])?.first)
        #expect(listed["name"] as? String == "app.tar.gz" && listed["size"] as? Int == bytes.count)
        #expect(listed["sha256"] as? String == asset.sha256 && listed["url"] as? String == path)
        let page = try await web.get("/bots/app/integrations/1").text
        #expect(page.contains("<a href=\"\(path)\">app.tar.gz</a></td><td>2.9 MiB</td>"), "\(page)")
        let bot = try await web.get("/bots/app").text
        #expect(bot.contains("href=\"/bots/app/latest/app.tar.gz\""), "the bot page links the latest archive")
    }
}
