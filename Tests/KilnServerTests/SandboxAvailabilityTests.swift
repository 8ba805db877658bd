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

import KilnCore
import KilnServer
import Testing

@Suite("Where bubblewrap cannot run")
struct SandboxAvailabilityTests {
    static func catalog() throws -> BotCatalog {
        let url = try RepositoryURL(parsing: "https://example.com/app.git", relativeTo: "/")
        var offline = Bot(name: "offline", repository: Repository(url: url))
        offline.network = .none
        let entries = [
            Bot(name: "boxed", repository: Repository(url: url)), offline, Bot(name: "open", repository: Repository(url: url), sandbox: .none),
        ]
        return BotCatalog(bots: entries.map { BotCatalog.Entry(file: "Bots/\($0.name).yml", bot: $0) })
    }

    @Test("sandbox-fallback: none runs the sandboxed bots unconfined, but never one with network: none, which has no network namespace then")
    func networkNoneNeverFallsBack() throws {
        let fallback = SandboxAvailability(problem: "no user namespaces", fallback: true).apply(to: try Self.catalog())
        #expect(fallback.bots.map(\.bot.name) == ["boxed", "open"] && fallback.bots.allSatisfy { $0.bot.sandbox == .none })
        #expect(fallback.broken.map(\.name) == ["offline"])
        let strict = SandboxAvailability(problem: "no user namespaces").apply(to: try Self.catalog())
        #expect(strict.bots.map(\.bot.name) == ["open"] && strict.broken.map(\.name) == ["boxed", "offline"])
    }
}
