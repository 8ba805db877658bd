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
import KilnGit
import KilnTestSupport
import Testing

/// A data directory's mirrors and workspaces, and a repository a bot watches.
struct GitHarness {
    let data: TemporaryDirectory
    let origin: GitFixture
    let mirrors: Mirrors
    let repository: Repository

    init(branch: String = "main") throws {
        data = try TemporaryDirectory("kiln-data")
        origin = try GitFixture(branch: branch)
        mirrors = Mirrors(directory: data.url("mirrors"))
        repository = Repository(url: try RepositoryURL(parsing: origin.url, relativeTo: "/"), branch: branch)
    }

    func workspace(_ bot: String = "app") -> String { data.url("workspaces/\(bot)") }

    func read(_ file: String, in bot: String = "app") -> String? {
        try? String(contentsOfFile: workspace(bot) + "/" + file, encoding: .utf8)
    }
}

@Suite("Mirrors: clone, fetch, remote heads")
struct MirrorTests {
    @Test("The first update clones a bare mirror; later ones fetch into the same mirror")
    func cloneThenFetch() async throws {
        let harness = try GitHarness()
        let first = try harness.origin.commit("first", files: ["README.md": "hello\n"])
        #expect(try await harness.mirrors.update(harness.repository) == first)
        let mirror = harness.mirrors.path(for: harness.repository.url)
        #expect(FileManager.default.fileExists(atPath: mirror + "/HEAD"))
        #expect(!FileManager.default.fileExists(atPath: mirror + "/README.md"), "a mirror is bare")
        // A marker in the mirror survives the next update: it was fetched into, not cloned afresh.
        try "kept".write(toFile: mirror + "/kiln-marker", atomically: true, encoding: .utf8)

        let second = try harness.origin.commit("second", files: ["README.md": "hello again\n"])
        #expect(try await harness.mirrors.update(harness.repository) == second)
        #expect(FileManager.default.fileExists(atPath: mirror + "/kiln-marker"))
    }

    @Test("Bots that share a repository share its mirror, however they spell the URL")
    func sharedMirror() throws {
        let mirrors = Mirrors(directory: "/data/mirrors")
        let a = try RepositoryURL(parsing: "https://github.com/example/app.git", relativeTo: "/")
        let b = try RepositoryURL(parsing: "https://token@GitHub.com/example/app/", relativeTo: "/")
        let c = try RepositoryURL(parsing: "https://github.com/example/other.git", relativeTo: "/")
        #expect(mirrors.path(for: a) == mirrors.path(for: b))
        #expect(mirrors.path(for: a) != mirrors.path(for: c))
        #expect(!mirrors.path(for: b).contains("token"))
        #expect(mirrors.path(for: a).hasPrefix("/data/mirrors/github.com_example_app-"))
    }

    @Test("Concurrent updates of one mirror are serialised and all succeed")
    func concurrentUpdates() async throws {
        let harness = try GitHarness()
        let head = try harness.origin.commit("first", files: ["a.txt": "a\n"])
        let heads = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<6 { group.addTask { try await harness.mirrors.update(harness.repository) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(heads == Array(repeating: head, count: 6))
    }

    @Test("A known commit needs no fetch: a new one is fetched, one already mirrored needs no remote, an unknown one is an error")
    func knownCommit() async throws {
        let harness = try GitHarness()
        let first = try harness.origin.commit("first", files: ["a.txt": "a\n"])
        try await harness.mirrors.ensureMirror(of: harness.repository, contains: first)
        let second = try harness.origin.commit("second", files: ["a.txt": "b\n"])
        try await harness.mirrors.ensureMirror(of: harness.repository, contains: second)

        // With the remote gone, both mirrored commits are there to check out; a new one is not.
        let moved = harness.origin.path + "-moved"
        try FileManager.default.moveItem(atPath: harness.origin.path, toPath: moved)
        try await harness.mirrors.ensureMirror(of: harness.repository, contains: first)
        try await harness.mirrors.ensureMirror(of: harness.repository, contains: second)
        try await harness.mirrors.checkout(first, of: harness.repository, into: harness.workspace())
        #expect(harness.read("a.txt") == "a\n")
        await #expect(throws: GitError.self) {
            try await harness.mirrors.ensureMirror(of: harness.repository, contains: String(repeating: "e", count: 40))
        }
        try FileManager.default.moveItem(atPath: moved, toPath: harness.origin.path)
        await #expect(throws: GitError.self, "a commit the remote does not have either") {
            try await harness.mirrors.ensureMirror(of: harness.repository, contains: String(repeating: "e", count: 40))
        }
    }

    @Test("The remote head is read without fetching, and follows the branch")
    func remoteHead() async throws {
        let harness = try GitHarness()
        let first = try harness.origin.commit("first", files: ["a.txt": "a\n"])
        #expect(try await harness.mirrors.remoteHead(harness.repository) == first)
        let second = try harness.origin.commit("second", files: ["a.txt": "b\n"])
        #expect(try await harness.mirrors.remoteHead(harness.repository) == second)
        #expect(!FileManager.default.fileExists(atPath: harness.mirrors.path(for: harness.repository.url)), "no mirror was made")
    }

    @Test("A deleted branch is reported as branch not found, by update and by remote head")
    func deletedBranch() async throws {
        let harness = try GitHarness()
        try harness.origin.commit("first", files: ["a.txt": "a\n"])
        try harness.origin.git("checkout", "-q", "-b", "feature")
        try harness.origin.commit("feature work", files: ["b.txt": "b\n"])
        let feature = Repository(url: harness.repository.url, branch: "feature")
        _ = try await harness.mirrors.update(feature)
        try harness.origin.git("checkout", "-q", "main")
        try harness.origin.git("branch", "-q", "-D", "feature")
        let expected = GitError.branchNotFound(branch: "feature", url: harness.origin.url)
        await #expect(throws: expected) { try await harness.mirrors.update(feature) }
        await #expect(throws: expected) { try await harness.mirrors.remoteHead(feature) }
        #expect(expected.description == "branch 'feature' not found in \(harness.origin.url) (check the bot's repository branch)")
    }

    @Test("A missing repository reads as such")
    func missingRepository() async throws {
        let data = try TemporaryDirectory()
        let mirrors = Mirrors(directory: data.url("mirrors"))
        let repository = Repository(url: try RepositoryURL(parsing: "/nonexistent/app.git", relativeTo: "/"))
        await #expect(throws: GitError.repositoryNotFound(url: "/nonexistent/app.git")) { try await mirrors.update(repository) }
        await #expect(throws: GitError.repositoryNotFound(url: "/nonexistent/app.git")) { try await mirrors.remoteHead(repository) }
        #expect(
            GitError.repositoryNotFound(url: "/nonexistent/app.git").description
                == "repository not found: /nonexistent/app.git (check the bot's repository url)")
        #expect(!FileManager.default.fileExists(atPath: mirrors.path(for: repository.url)), "a failed clone leaves nothing behind")
    }

    @Test("An unreachable host is reported without the URL's credentials")
    func unreachableHost() async throws {
        let data = try TemporaryDirectory()
        let mirrors = Mirrors(directory: data.url("mirrors"))
        // Port 1 on loopback: nothing listens, the connection is refused at once.
        let repository = Repository(url: try RepositoryURL(parsing: "https://ci:s3cret@127.0.0.1:1/app.git", relativeTo: "/"))
        do {
            _ = try await mirrors.remoteHead(repository)
            Issue.record("expected an error")
        } catch {
            guard case .hostUnreachable(let url, _) = error else { Issue.record("expected host unreachable, got \(error)"); return }
            #expect(url == "https://127.0.0.1:1/app.git")
            #expect(!error.description.contains("s3cret"))
            #expect(error.description.hasPrefix("cannot reach the host of https://127.0.0.1:1/app.git: "))
        }
    }

    @Test("A malformed URL is refused before libgit2 sees it")
    func malformedURL() {
        #expect(throws: RepositoryURLError.missingHost) { try RepositoryURL(parsing: "https://", relativeTo: "/") }
        #expect(RepositoryURLError.missingHost.description == "the repository URL has no host")
    }

    @Test("A damaged mirror is cloned again, once, and the log says so")
    func damagedMirror() async throws {
        let harness = try GitHarness()
        try harness.origin.commit("first", files: ["a.txt": "a\n"])
        _ = try await harness.mirrors.update(harness.repository)
        let mirror = harness.mirrors.path(for: harness.repository.url)
        try FileManager.default.removeItem(atPath: mirror + "/objects")
        try "garbage".write(toFile: mirror + "/HEAD", atomically: true, encoding: .utf8)
        let head = try harness.origin.commit("second", files: ["a.txt": "b\n"])

        let messages = MessageLog()
        #expect(try await harness.mirrors.update(harness.repository, log: { messages.append($0) }) == head)
        let logged = messages.all
        #expect(logged.count == 1)
        #expect(logged.first?.hasPrefix("the mirror \(mirror) is damaged (") == true)
        #expect(logged.first?.hasSuffix("); cloning \(harness.origin.url) again") == true)
    }
}

/// Collects log lines from a `@Sendable` callback.
final class MessageLog: @unchecked Sendable {
    // Guarded by `lock`.
    private var lines: [String] = []
    private let lock = NSLock()

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

@Suite("Mirrors over the network (git daemon on loopback)")
struct NetworkMirrorTests {
    @Test("Clone, fetch and remote head over git://")
    func overGitProtocol() async throws {
        let origin = try GitFixture()
        let first = try origin.commit("first", files: ["a.txt": "a\n"])
        let daemon = try GitDaemon(serving: origin.directory.path)
        let data = try TemporaryDirectory()
        let mirrors = Mirrors(directory: data.url("mirrors"))
        let repository = Repository(url: try RepositoryURL(parsing: daemon.url("origin"), relativeTo: "/"))
        #expect(try await mirrors.remoteHead(repository) == first)
        #expect(try await mirrors.update(repository) == first)
        let second = try origin.commit("second", files: ["a.txt": "b\n"], author: .bob)
        #expect(try await mirrors.remoteHead(repository) == second)
        #expect(try await mirrors.update(repository) == second)
        let commits = try await mirrors.commits(of: repository, from: first, to: second)
        #expect(commits.map(\.author) == ["Bob Builder"])
        try await mirrors.checkout(second, of: repository, into: data.url("workspaces/app"))
        #expect(try String(contentsOfFile: data.url("workspaces/app/a.txt"), encoding: .utf8) == "b\n")
    }

    @Test("A repository the server does not have reads as not found")
    func missingOnServer() async throws {
        let origin = try GitFixture()
        try origin.commit("first", files: ["a.txt": "a\n"])
        let daemon = try GitDaemon(serving: origin.directory.path)
        let data = try TemporaryDirectory()
        let mirrors = Mirrors(directory: data.url("mirrors"))
        let repository = Repository(url: try RepositoryURL(parsing: daemon.url("nothing.git"), relativeTo: "/"))
        do {
            _ = try await mirrors.update(repository)
            Issue.record("expected an error")
        } catch {
            #expect(error == .repositoryNotFound(url: daemon.url("nothing.git")), "\(error)")
        }
    }
}
