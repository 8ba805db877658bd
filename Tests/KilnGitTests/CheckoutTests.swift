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
import KilnTestSupport
import Testing

@testable import KilnGit

@Suite("Checkout into a workspace")
struct CheckoutTests {
    @Test("Checkout is forced: changes and untracked files go, ignored output and .build stay")
    func forcedCheckout() async throws {
        let harness = try GitHarness()
        let first = try harness.origin.commit(
            "first", files: ["Sources/App/main.swift": "print(1)\n", ".gitignore": "/output/\n", "gone.txt": "soon gone\n"])
        _ = try await harness.mirrors.update(harness.repository)
        try await harness.mirrors.checkout(first, of: harness.repository, into: harness.workspace())
        #expect(harness.read("Sources/App/main.swift") == "print(1)\n")

        let workspace = harness.workspace()
        try "print(\"local edit\")\n".write(toFile: workspace + "/Sources/App/main.swift", atomically: true, encoding: .utf8)
        try "stray".write(toFile: workspace + "/stray.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: workspace + "/.build/debug", withIntermediateDirectories: true)
        try "binary".write(toFile: workspace + "/.build/debug/app", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: workspace + "/output", withIntermediateDirectories: true)
        try "report".write(toFile: workspace + "/output/report.txt", atomically: true, encoding: .utf8)

        try harness.origin.git("rm", "-q", "gone.txt")
        let second = try harness.origin.commit("second", files: ["Sources/App/main.swift": "print(2)\n"])
        _ = try await harness.mirrors.update(harness.repository)
        try await harness.mirrors.checkout(second, of: harness.repository, into: workspace)

        #expect(harness.read("Sources/App/main.swift") == "print(2)\n")
        #expect(harness.read("gone.txt") == nil)
        #expect(harness.read("stray.txt") == nil)
        #expect(harness.read(".build/debug/app") == "binary")
        #expect(harness.read("output/report.txt") == "report")
        #expect(try await runProcess("/usr/bin/git", ["rev-parse", "HEAD"], in: workspace).standardOutput == second + "\n")

        // Going back to an older commit works the same way.
        try await harness.mirrors.checkout(first, of: harness.repository, into: workspace)
        #expect(harness.read("Sources/App/main.swift") == "print(1)\n")
        #expect(harness.read("gone.txt") == "soon gone\n")
    }

    @Test("The workspace borrows the mirror's objects instead of copying them, and names the redacted URL")
    func borrowedObjects() async throws {
        let harness = try GitHarness()
        let head = try harness.origin.commit("first", files: ["a.txt": "a\n"])
        _ = try await harness.mirrors.update(harness.repository)
        try await harness.mirrors.checkout(head, of: harness.repository, into: harness.workspace())
        let alternates = try String(contentsOfFile: harness.workspace() + "/.git/objects/info/alternates", encoding: .utf8)
        #expect(alternates == harness.mirrors.path(for: harness.repository.url) + "/objects\n")
        let packs = try FileManager.default.contentsOfDirectory(atPath: harness.workspace() + "/.git/objects")
        #expect(Set(packs) == ["info", "pack"], "no objects of its own")
        let origin = try await runProcess("/usr/bin/git", ["config", "remote.origin.url"], in: harness.workspace())
        #expect(origin.standardOutput == harness.repository.url.redacted + "\n")
        // A repository as git itself sees it: the commit checked out, nothing changed.
        let described = try await runProcess("/usr/bin/git", ["log", "-1", "--format=%H %s"], in: harness.workspace())
        #expect(described.standardOutput == "\(head) first\n", "\(described.standardError)")
        let status = try await runProcess("/usr/bin/git", ["status", "--porcelain"], in: harness.workspace())
        #expect(status.status == 0 && status.standardOutput.isEmpty, "\(status.standardOutput)\(status.standardError)")
    }

    @Test("A URL is quoted for the workspace's git config as git reads it back")
    func configValues() async throws {
        let directory = try TemporaryDirectory()
        let value = #"/srv/git/a "quoted" \ path\there"#
        try "[remote \"origin\"]\n\turl = \(Mirrors.configValue(value))\n".write(toFile: directory.url("config"), atomically: false, encoding: .utf8)
        let read = try await runProcess("/usr/bin/git", ["config", "-f", "config", "remote.origin.url"], in: directory.path)
        #expect(read.standardOutput == value + "\n", "\(read.standardError)")
    }

    @Test("An unknown commit is an error naming it")
    func unknownCommit() async throws {
        let harness = try GitHarness()
        try harness.origin.commit("first", files: ["a.txt": "a\n"])
        _ = try await harness.mirrors.update(harness.repository)
        let missing = String(repeating: "ab", count: 20)
        await #expect(throws: GitError.commitNotFound(commit: missing, url: harness.origin.url)) {
            try await harness.mirrors.checkout(missing, of: harness.repository, into: harness.workspace())
        }
    }

    @Test("Submodules are checked out, recursively, at the commits their parent pins")
    func submodules() async throws {
        let harness = try GitHarness()
        let leaf = try GitFixture()
        try leaf.commit("leaf v1", files: ["leaf.txt": "leaf v1\n"])
        let middle = try GitFixture()
        try middle.commit("middle", files: ["middle.txt": "middle\n"])
        try middle.git("submodule", "add", "-q", leaf.url, "Leaf")
        try middle.git("commit", "-q", "-m", "add leaf")
        try harness.origin.commit("parent", files: ["parent.txt": "parent\n"])
        try harness.origin.git("submodule", "add", "-q", middle.url, "Vendor/Middle")
        try harness.origin.git("submodule", "update", "-q", "--init", "--recursive")
        let pinned = try harness.origin.commit("add middle", files: [:])
        // The submodule moves on after the parent pinned it: the checkout must not follow.
        try leaf.commit("leaf v2", files: ["leaf.txt": "leaf v2\n"])

        _ = try await harness.mirrors.update(harness.repository)
        try await harness.mirrors.checkout(pinned, of: harness.repository, into: harness.workspace())
        #expect(harness.read("parent.txt") == "parent\n")
        #expect(harness.read("Vendor/Middle/middle.txt") == "middle\n")
        #expect(harness.read("Vendor/Middle/Leaf/leaf.txt") == "leaf v1\n")
    }

    @Test("A submodule's URL relative to its parent's resolves; git sees it initialised at the pinned commit")
    func relativeSubmodule() async throws {
        let harness = try GitHarness()
        let library = try GitFixture()
        let pinned = try library.commit("library", files: ["lib.txt": "v1\n"])
        // Both fixtures live in temp directories of their own: ../../<library's>/origin.
        let relative = "../../" + URL(fileURLWithPath: library.path).deletingLastPathComponent().lastPathComponent + "/origin"
        try harness.origin.commit("parent", files: ["parent.txt": "parent\n"])
        try harness.origin.git("submodule", "add", "-q", library.url, "Library")
        try harness.origin.git("config", "-f", ".gitmodules", "submodule.Library.url", relative)
        let head = try harness.origin.commit("pin the library by a relative URL", files: [:])

        _ = try await harness.mirrors.update(harness.repository)
        try await harness.mirrors.checkout(head, of: harness.repository, into: harness.workspace())
        #expect(harness.read("Library/lib.txt") == "v1\n")
        let status = try await runProcess("/usr/bin/git", ["submodule", "status"], in: harness.workspace()).standardOutput
        #expect(status.hasPrefix(" \(pinned) Library"), "git submodule status: \(status)")
        let clean = try await runProcess("/usr/bin/git", ["status", "--porcelain"], in: harness.workspace()).standardOutput
        #expect(clean.isEmpty, "git status: \(clean)")
    }

    /// A bot's repository with a submodule at Library/ (one commit, lib.txt: v1), not yet committed.
    static func parentWithLibrary() throws -> (GitHarness, GitFixture) {
        let harness = try GitHarness()
        let library = try GitFixture()
        try library.commit("v1", files: ["lib.txt": "v1\n"])
        try harness.origin.commit("parent", files: ["parent.txt": "parent\n"])
        try harness.origin.git("submodule", "add", "-q", library.url, "Library")
        return (harness, library)
    }

    /// Commits v2 (lib.txt: v2) to the library and pins it in the bot's repository; the new pin.
    static func pinLibraryV2(_ harness: GitHarness, _ library: GitFixture) throws -> String {
        try library.commit("v2", files: ["lib.txt": "v2\n"])
        try harness.origin.git("-C", "Library", "pull", "-q", "origin", "main")
        try harness.origin.git("add", "Library")
        return try harness.origin.commit("pin v2", files: [:])
    }

    @Test("A submodule's mirror is fetched only when it lacks the pinned commit: a later pin arrives, a known one needs no remote")
    func submoduleMirror() async throws {
        let (harness, library) = try Self.parentWithLibrary()
        let first = try harness.origin.commit("pin v1", files: [:])
        _ = try await harness.mirrors.update(harness.repository)
        try await harness.mirrors.checkout(first, of: harness.repository, into: harness.workspace())
        #expect(harness.read("Library/lib.txt") == "v1\n")

        // The parent moves its pin: the submodule's mirror fetches the new commit.
        let second = try Self.pinLibraryV2(harness, library)
        _ = try await harness.mirrors.update(harness.repository)
        try await harness.mirrors.checkout(second, of: harness.repository, into: harness.workspace())
        #expect(harness.read("Library/lib.txt") == "v2\n")

        // With the submodule's host gone, both pins still check out, into a new workspace too.
        try FileManager.default.removeItem(atPath: library.path)
        try await harness.mirrors.checkout(first, of: harness.repository, into: harness.workspace("fresh"))
        #expect(harness.read("Library/lib.txt", in: "fresh") == "v1\n")
        try await harness.mirrors.checkout(second, of: harness.repository, into: harness.workspace("fresh"))
        #expect(harness.read("Library/lib.txt", in: "fresh") == "v2\n")
    }

    @Test("A workspace whose submodules are gitlink files (git clone --recurse-submodules, or an older Kiln) is taken over")
    func gitlinkWorkspace() async throws {
        let (harness, library) = try Self.parentWithLibrary()
        let head = try harness.origin.commit("pin v1", files: [:])
        try FileManager.default.createDirectory(atPath: harness.data.url("workspaces"), withIntermediateDirectories: true)
        try harness.origin.git("clone", "-q", "--recurse-submodules", harness.origin.path, harness.workspace())
        #expect(FileManager.default.fileExists(atPath: harness.workspace() + "/.git/modules/Library"), "git made a gitlink")

        let second = try Self.pinLibraryV2(harness, library)
        _ = try await harness.mirrors.update(harness.repository)
        try await harness.mirrors.checkout(second, of: harness.repository, into: harness.workspace())
        #expect(harness.read("Library/lib.txt") == "v2\n")
        try await harness.mirrors.checkout(head, of: harness.repository, into: harness.workspace())
        #expect(harness.read("Library/lib.txt") == "v1\n")
    }

    @Test("A pinned commit the submodule's repository does not have is an error naming the commit")
    func missingPinnedCommit() async throws {
        let (harness, library) = try Self.parentWithLibrary()
        // A commit made in the submodule's checkout and never pushed.
        try harness.origin.git("-C", "Library", "commit", "-q", "--allow-empty", "-m", "local")
        let local = try harness.origin.git("-C", "Library", "rev-parse", "HEAD").trimmingCharacters(in: .whitespacesAndNewlines)
        try harness.origin.git("add", "Library")
        let head = try harness.origin.commit("pin an unpushed commit", files: [:])
        _ = try await harness.mirrors.update(harness.repository)
        await #expect(throws: GitError.commitNotFound(commit: local, url: library.url)) {
            try await harness.mirrors.checkout(head, of: harness.repository, into: harness.workspace())
        }
    }
}
