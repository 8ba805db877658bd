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

@testable import KilnServer

@Suite("Watching the bot files")
struct BotFilesWatchTests {
    @Test("Files written in place, added, renamed and deleted, a symlinked file's target and a replaced directory are seen; reads are not")
    func changes() throws {
        let home = try TemporaryDirectory()
        try home.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\n")
        try home.write("elsewhere/lib.yml", "repository: {url: /srv/git/lib.git}\n")
        try FileManager.default.createSymbolicLink(atPath: home.url("Bots/lib.yml"), withDestinationPath: home.url("elsewhere/lib.yml"))
        let watch = try #require(BotFilesWatch(directory: home.url("Bots")), "inotify is unavailable")
        watch.follow([home.url("Bots/app.yml"), home.url("Bots/lib.yml")])
        #expect(!watch.changed())

        _ = try String(contentsOfFile: home.url("Bots/app.yml"), encoding: .utf8)
        #expect(!watch.changed(), "a read changes nothing")
        let handle = try #require(FileHandle(forWritingAtPath: home.url("Bots/app.yml")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("timeout: 5m\n".utf8))
        #expect(watch.changed(), "a file appended to in place")
        #expect(!watch.changed(), "each change is told once")
        try handle.close()
        #expect(!watch.changed(), "a writer's descriptor closed later (a forked process held it) is no new change")

        try home.write("elsewhere/lib.yml", "repository: {url: /srv/git/lib.git, branch: develop}\n")
        #expect(watch.changed(), "the target of a symlinked bot file")
        try home.write("Bots/new.yml", "repository: {url: /srv/git/new.git}\n")
        #expect(watch.changed(), "a new file")
        try FileManager.default.moveItem(atPath: home.url("Bots/new.yml"), toPath: home.url("Bots/renamed.yml"))
        #expect(watch.changed(), "a renamed file")
        try FileManager.default.removeItem(atPath: home.url("Bots/renamed.yml"))
        #expect(watch.changed(), "a deleted file")

        // A deploy replaces the whole directory; the watch follows the new one after the reload.
        try home.write("Bots-2/app.yml", "repository: {url: /srv/git/app.git}\n")
        try FileManager.default.moveItem(atPath: home.url("Bots"), toPath: home.url("Bots-1"))
        try FileManager.default.moveItem(atPath: home.url("Bots-2"), toPath: home.url("Bots"))
        #expect(watch.changed(), "the directory replaced")
        watch.follow([home.url("Bots/app.yml")])
        _ = watch.changed()
        try home.write("Bots/app.yml", "repository: {url: /srv/git/app.git}\ntimeout: 9m\n")
        #expect(watch.changed(), "a file of the new directory")
        try home.write("unrelated.txt", "beside the directory\n")
        #expect(!watch.changed(), "a file beside the bots directory")
    }
}
