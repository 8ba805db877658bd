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

import KilnServer
import KilnTestSupport
import Logging
import Testing

@Suite("Bot registry")
struct BotRegistryTests {
    @Test("Reloading replaces the whole catalog: edits, breakages and deletions show at once")
    func reload() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\n")
        try directory.write("Bots/lib.yml", "repository: {url: /srv/git/lib.git}\n")
        let registry = BotRegistry(directory: directory.url("Bots"), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let first = try await registry.reload()
        #expect(first.bots.map(\.bot.name) == ["app", "lib"])

        try directory.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\ntimeout: forever\n")
        try directory.write("Bots/lib.yml", "repository: {url: /srv/git/lib.git, branch: develop}\n")
        try await registry.reload()
        let second = await registry.catalog
        #expect(second.bots.map(\.bot.repository.branch) == ["develop"])
        #expect(second.broken.map(\.name) == ["app"])
    }
}
