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

@Suite("Commit ranges and blame")
struct HistoryTests {
    @Test("A first integration covers the head commit alone, with author, email, time and subject")
    func firstIntegration() async throws {
        let harness = try GitHarness()
        try harness.origin.commit("one", files: ["a.txt": "1\n"])
        let head = try harness.origin.commit(
            "Ünïcödé subject\n\nbody", files: ["a.txt": "2\n"], author: .init("Jörg Müller 日本", "jorg@example.org"),
            date: "2026-03-10T12:00:00Z")
        _ = try await harness.mirrors.update(harness.repository)
        let commits = try await harness.mirrors.commits(of: harness.repository, from: nil, to: head)
        #expect(
            commits == [
                Commit(
                    sha: head, author: "Jörg Müller 日本", email: "jorg@example.org", date: Date(timeIntervalSince1970: 1_773_144_000),
                    subject: "Ünïcödé subject")
            ])
    }

    @Test("The range is (previous, head], newest first")
    func range() async throws {
        let harness = try GitHarness()
        let base = try harness.origin.commit("base", files: ["a.txt": "0\n"], date: "2026-03-10T10:00:00Z")
        let one = try harness.origin.commit("one", files: ["a.txt": "1\n"], date: "2026-03-10T11:00:00Z")
        let two = try harness.origin.commit("two", files: ["a.txt": "2\n"], author: .bob, date: "2026-03-10T12:00:00Z")
        _ = try await harness.mirrors.update(harness.repository)
        let commits = try await harness.mirrors.commits(of: harness.repository, from: base, to: two)
        #expect(commits.map(\.sha) == [two, one])
        #expect(commits.map(\.author) == ["Bob Builder", "Alice Archer"])
        #expect(try await harness.mirrors.commits(of: harness.repository, from: two, to: two).isEmpty)
    }

    @Test("Across a merge: the merge and the commits of both sides")
    func merges() async throws {
        let harness = try GitHarness()
        let base = try harness.origin.commit("base", files: ["a.txt": "0\n"], date: "2026-03-10T10:00:00Z")
        try harness.origin.git("checkout", "-q", "-b", "feature")
        let f1 = try harness.origin.commit("feature 1", files: ["f.txt": "1\n"], author: .bob, date: "2026-03-10T11:00:00Z")
        let f2 = try harness.origin.commit("feature 2", files: ["f.txt": "2\n"], author: .bob, date: "2026-03-10T12:00:00Z")
        try harness.origin.git("checkout", "-q", "main")
        let m1 = try harness.origin.commit("main 1", files: ["a.txt": "1\n"], date: "2026-03-10T11:30:00Z")
        try harness.origin.git("merge", "-q", "--no-ff", "-m", "Merge feature", "feature")
        let merge = try harness.origin.head()
        _ = try await harness.mirrors.update(harness.repository)
        let commits = try await harness.mirrors.commits(of: harness.repository, from: base, to: merge)
        #expect(commits.first?.sha == merge)
        #expect(commits.first?.subject == "Merge feature")
        #expect(Set(commits.map(\.sha)) == [merge, f1, f2, m1])
        #expect(try await harness.mirrors.isAncestor(base, of: merge, in: harness.repository))
        #expect(try await !harness.mirrors.isAncestor(merge, of: base, in: harness.repository))
    }

    @Test("After a force-push: only the new history's commits, none of the discarded ones")
    func forcePush() async throws {
        let harness = try GitHarness()
        let base = try harness.origin.commit("base", files: ["a.txt": "0\n"])
        let discarded = try harness.origin.commit("discarded", files: ["a.txt": "bad\n"])
        _ = try await harness.mirrors.update(harness.repository)
        try harness.origin.git("reset", "-q", "--hard", base)
        let rewritten = try harness.origin.commit("rewritten", files: ["a.txt": "good\n"], author: .bob)
        #expect(try await harness.mirrors.update(harness.repository) == rewritten)
        #expect(try await !harness.mirrors.isAncestor(discarded, of: rewritten, in: harness.repository))
        let commits = try await harness.mirrors.commits(of: harness.repository, from: discarded, to: rewritten)
        #expect(commits.map(\.sha) == [rewritten])
    }

    @Test("Blame names who last changed a line, and follows lines that moved down")
    func blame() async throws {
        let harness = try GitHarness()
        let lines = (1...5).map { "line \($0)" }.joined(separator: "\n") + "\n"
        let alice = try harness.origin.commit("alice writes", files: ["Sources/a.swift": lines])
        let inserted = (1...10).map { "// inserted \($0)" }.joined(separator: "\n") + "\n"
        let bob = try harness.origin.commit(
            "bob inserts", files: ["Sources/a.swift": inserted + lines], author: .init("Björn Ångström", "bjorn@example.se"))
        _ = try await harness.mirrors.update(harness.repository)
        // Alice's line 2 is now line 12; Bob wrote lines 1-10.
        #expect(
            try await harness.mirrors.blame(of: harness.repository, file: "Sources/a.swift", line: 12, at: bob)
                == BlameLine(commit: alice, author: "Alice Archer", email: "alice@example.com"))
        #expect(
            try await harness.mirrors.blame(of: harness.repository, file: "Sources/a.swift", line: 3, at: bob)
                == BlameLine(commit: bob, author: "Björn Ångström", email: "bjorn@example.se"))
        // As of Alice's commit, line 2 is hers.
        #expect(try await harness.mirrors.blame(of: harness.repository, file: "Sources/a.swift", line: 2, at: alice)?.commit == alice)
        #expect(try await harness.mirrors.blame(of: harness.repository, file: "Sources/missing.swift", line: 1, at: bob) == nil)
        #expect(try await harness.mirrors.blame(of: harness.repository, file: "Sources/a.swift", line: 99, at: bob) == nil)
    }
}

@Suite("A pull request's changed lines")
struct ChangedLinesTests {
    @Test("Lines the head added or changed since the merge base, numbered as in the head; not the base's own later changes, nor deletions")
    func changedLines() async throws {
        let harness = try GitHarness()
        let lines = (1...6).map { "line \($0)" }
        try harness.origin.commit("base", files: ["a.txt": lines.joined(separator: "\n") + "\n", "gone.txt": "x\n", "old.txt": "same\nsame\nsame\n"])
        try harness.origin.git("checkout", "-q", "-b", "topic")
        var topic = lines
        topic[2] = "line three"
        topic.insert("inserted", at: 4)
        try harness.origin.commit("change", files: ["a.txt": topic.joined(separator: "\n") + "\n", "b.txt": "new\nfile\n"], author: .bob)
        try harness.origin.git("rm", "-q", "gone.txt")
        try harness.origin.git("mv", "old.txt", "new.txt")
        let head = try harness.origin.commit("move", files: ["new.txt": "same\nsame\nsame\nmore\n"], author: .bob)
        try harness.origin.git("checkout", "-q", "main")
        var later = lines
        later[5] = "line six, on main"
        let base = try harness.origin.commit("main moves on", files: ["a.txt": later.joined(separator: "\n") + "\n"])
        _ = try await harness.mirrors.update(harness.repository)
        _ = try await harness.mirrors.update(Repository(url: harness.repository.url, branch: "topic"))
        let changed = try await harness.mirrors.changedLines(of: harness.repository, base: base, head: head)
        #expect(changed.lines == ["a.txt": [3, 5], "b.txt": [1, 2], "new.txt": [4]], "\(changed.lines)")
        #expect(changed.contains(file: "a.txt", line: 3) && !changed.contains(file: "a.txt", line: 7))
    }
}
