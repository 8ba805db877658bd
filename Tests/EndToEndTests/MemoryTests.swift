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
import KilnTestSupport
import Testing

@Suite("kiln serve: memory")
struct MemoryTests {
    /// Each bot costs a few kilobytes of private memory once it has integrated. Debian's libgit2
    /// 1.5 leaked ~250 KB (pcre2 match data) for every workspace whose `origin` remote was created
    /// with `git_remote_create`: forty bots then cost 9.5 MB more than one, against 0.8 MB now.
    @Test("Forty bots that have each integrated once cost little more private memory than one")
    func perBotMemory() async throws {
        let repo = try ServerTests.quickRepository()
        let bot = "repository: {url: '\(repo.url)'}\ntest: {enabled: false}\n"
        async let one = Self.idlePrivateMegabytes(bots: 1, file: bot)
        async let forty = Self.idlePrivateMegabytes(bots: 40, file: bot)
        let (single, many) = try await (one, forty)
        #expect(single > 0 && many > 0, "RssAnon is read from /proc/PID/status")
        #expect(many - single < 4, "40 idle bots: \(many) MB private, 1 idle bot: \(single) MB")
    }

    /// Serves `bots` copies of `file`, waits until each has integrated once and all are idle, and
    /// reads the server's private memory.
    static func idlePrivateMegabytes(bots: Int, file: String) async throws -> Double {
        var files: [String: String] = [:]
        for index in 1...bots { files["bot-\(index)"] = file }
        let served = try await ServedHome(bots: files, config: "executors: 2\n")
        try await served.eventually("every bot's first integration to end", timeout: .seconds(120)) {
            let overviews = try await served.store().botOverviews()
            return overviews.count == bots && overviews.allSatisfy { $0.last != nil && $0.running.isEmpty && $0.queued.isEmpty }
        }
        try await Task.sleep(for: .seconds(1))
        let megabytes = served.server.privateMegabytes
        _ = try await served.server.terminate()
        return megabytes
    }
}
