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
import KilnBuild
import KilnTestSupport
import Testing

@Suite("Package.resolved, read as data")
struct PackageResolvedTests {
    @Test("Pins of formats 1 and 2 with their URL and revision; local packages and files that are none give nothing")
    func pins() throws {
        let directory = try TemporaryDirectory()
        try directory.write(
            "Package.resolved",
            """
            {"pins": [
              {"identity": "swift-log", "kind": "remoteSourceControl", "location": "https://github.com/apple/swift-log.git",
               "state": {"revision": "aaa", "version": "1.16.2"}},
              {"identity": "tools", "kind": "remoteSourceControl", "location": "git@example.com:team/tools.git",
               "state": {"branch": "main", "revision": "bbb"}},
              {"identity": "local", "kind": "localSourceControl", "location": "/src/local", "state": {"revision": "ccc"}}
            ], "version": 2}
            """)
        let modern = PackageResolved.pins(in: directory.path)
        #expect(modern.map(\.identity) == ["swift-log", "tools"] && modern.map(\.revision) == ["aaa", "bbb"])
        #expect(modern.map(\.version) == ["1.16.2", "main"] && modern.first?.location == "https://github.com/apple/swift-log.git")
        try directory.write(
            "Package.resolved",
            """
            {"object": {"pins": [{"package": "Yams", "repositoryURL": "https://github.com/jpsim/Yams.git",
              "state": {"branch": null, "revision": "ddd", "version": "5.0.1"}}]}, "version": 1}
            """)
        #expect(PackageResolved.pins(in: directory.path).map(\.location) == ["https://github.com/jpsim/Yams.git"])
        try directory.write("Package.resolved", "not json")
        #expect(PackageResolved.pins(in: directory.path).isEmpty)
        #expect(PackageResolved.pins(in: directory.path + "/nowhere").isEmpty)
    }

    @Test("The URLs SwiftPM could not clone, each once")
    func unreachable() {
        let messages = [
            "Failed to clone repository git://127.0.0.1:9418/dep.git:", "Failed to clone repository https://example.com/a.git:",
            "something else", "Failed to clone repository git://127.0.0.1:9418/dep.git:",
        ]
        #expect(PackageResolved.unreachable(in: messages) == ["git://127.0.0.1:9418/dep.git", "https://example.com/a.git"])
    }
}
