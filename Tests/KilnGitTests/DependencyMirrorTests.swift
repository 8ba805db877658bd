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
import KilnGit
import KilnTestSupport
import Testing

@Suite("Dependency mirrors: pins, submodules, pruning")
struct DependencyMirrorTests {
    @Test("A pinned revision's submodules are mirrored too, recursively, and rewritten for the build")
    func submodules() async throws {
        let data = try TemporaryDirectory("kiln-data")
        let mirrors = DependencyMirrors(directory: data.url("dependencies"))
        let leaf = try GitFixture()
        try leaf.commit("leaf", files: ["leaf.txt": "leaf\n"])
        let middle = try GitFixture()
        try middle.commit("middle", files: ["middle.txt": "middle\n"])
        try middle.git("submodule", "add", "-q", leaf.url, "Leaf")
        let middlePin = try middle.commit("add leaf", files: [:])
        let dependency = try GitFixture()
        try dependency.commit("dep", files: ["dep.txt": "dep\n"])
        try dependency.git("submodule", "add", "-q", middle.url, "Vendor/Middle")
        let pin = try dependency.commit("add middle", files: [:])
        // Both move on after the pin: the mirrors need the pinned commits, which they have.
        try leaf.commit("leaf 2", files: ["leaf.txt": "leaf 2\n"])

        let first = try await mirrors.ensure(dependency.url, revision: pin)
        #expect(first == DependencyMirrors.Mirrored(freshness: .fetched, submodules: [middle.url, leaf.url]))
        #expect(Set(mirrors.mirrored().map(\.location)) == [dependency.url, middle.url, leaf.url])
        let config = mirrors.gitConfig()
        #expect(config.contains("insteadOf = \(leaf.url)\n") && config.contains("allow = always"), "\(config)")

        // Everything pinned is here: nothing is fetched, even with the upstreams gone.
        try FileManager.default.removeItem(atPath: leaf.path)
        let second = try await mirrors.ensure(dependency.url, revision: pin)
        #expect(second == DependencyMirrors.Mirrored(freshness: .current, submodules: [middle.url, leaf.url]))
        #expect(try await mirrors.ensure(middle.url, revision: middlePin).submodules == [leaf.url])
    }

    @Test("Mirrors no build needed since the cutoff are removed; those used since are kept")
    func prune() async throws {
        let data = try TemporaryDirectory("kiln-data")
        let mirrors = DependencyMirrors(directory: data.url("dependencies"))
        let kept = try GitFixture()
        let keptPin = try kept.commit("kept", files: ["a.txt": "a\n"])
        let dropped = try GitFixture()
        let droppedPin = try dropped.commit("dropped", files: ["b.txt": "b\n"])
        _ = try await mirrors.ensure(dropped.url, revision: droppedPin)
        let old = Date(timeIntervalSinceNow: -40 * 86_400)
        let marker = try #require(mirrors.mirrored().first).path + ".location"
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: marker)
        _ = try await mirrors.ensure(kept.url, revision: keptPin)

        #expect(await mirrors.prune(unusedSince: Date(timeIntervalSinceNow: -30 * 86_400)) == [dropped.url])
        #expect(mirrors.mirrored().map(\.location) == [kept.url])
        let left = try FileManager.default.contentsOfDirectory(atPath: mirrors.directory).filter { $0.hasSuffix(".git") }
        #expect(left.count == 1, "the dropped mirror's files are gone: \(left)")
        // Using a mirror again keeps it: a recent build's pin is never pruned.
        _ = try await mirrors.ensure(kept.url, revision: keptPin)
        #expect(await mirrors.prune(unusedSince: Date(timeIntervalSinceNow: -1)) == [])
    }
}
