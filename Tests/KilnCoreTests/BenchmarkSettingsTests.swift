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
import KilnTestSupport
import Testing

@Suite("performance.benchmarks and visibility in bot files")
struct BenchmarkSettingsTests {
    @Test("benchmarks: true runs every target, a list those, false or absent none; visibility: private")
    func decode() throws {
        let base = "repository: {url: /srv/git/app.git}\n"
        #expect(try BotFile.decode(base, file: "Bots/app.yml").performance.benchmarks == nil)
        #expect(try BotFile.decode(base + "performance: {benchmarks: true}\n", file: "Bots/app.yml").performance.benchmarks == [])
        #expect(try BotFile.decode(base + "performance: {benchmarks: false}\n", file: "Bots/app.yml").performance.benchmarks == nil)
        #expect(
            try BotFile.decode(base + "performance: {benchmarks: [Parse, Codec]}\n", file: "Bots/app.yml").performance.benchmarks == [
                "Parse", "Codec",
            ])
        #expect(try BotFile.decode(base, file: "Bots/app.yml").visibility == .public)
        #expect(try BotFile.decode(base + "visibility: private\n", file: "Bots/app.yml").visibility == .private)
    }
}

@Suite("A broken bot file's visibility")
struct BrokenVisibilityTests {
    @Test("A broken file that mentions private is taken as private; one that does not, as public")
    func brokenMentionsPrivate() throws {
        let directory = try TemporaryDirectory()
        let hidden = try directory.write("Bots/hush.yml", "repository: {url: /srv/git/app.git}\nvisibility: private\ntimeout: soon\n")
        let open = try directory.write("Bots/open.yml", "repository: {url: /srv/git/app.git}\ntimeout: soon\n")
        let catalog = BotCatalog.load(files: [hidden, open])
        #expect(catalog.broken.map(\.name) == ["hush", "open"])
        #expect(catalog.states.map(\.isPrivate) == [true, false])
    }
}
