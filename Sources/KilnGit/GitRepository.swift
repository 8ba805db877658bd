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

internal import CGit2
import Foundation
import KilnCore

/// An open libgit2 repository, freed with the value. Confined to the thread that opened it.
final class GitRepository {
    let pointer: OpaquePointer

    private init(pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        git_repository_free(pointer)
    }

    static func open(_ path: String) -> (GitRepository?, String) {
        var pointer: OpaquePointer?
        guard git_repository_open(&pointer, path) == 0, let pointer else { return (nil, lastGitMessage()) }
        return (GitRepository(pointer: pointer), "")
    }

    /// The commit `name` points at (`refs/heads/main`), nil when there is no such reference.
    func resolve(_ name: String) throws(GitError) -> String? {
        var id = git_oid()
        let code = git_reference_name_to_id(&id, pointer, name)
        if code == GIT_ENOTFOUND.rawValue { return nil }
        guard code == 0 else { throw .failed(operation: "reading \(name)", detail: lastGitMessage()) }
        return hex(&id)
    }

    /// Runs `body` with the commit `sha`, nil when this repository does not have it.
    func withCommit<T>(_ sha: String, _ body: (OpaquePointer?) throws(GitError) -> T) throws(GitError) -> T {
        guard var id = oid(sha) else { return try body(nil) }
        var commit: OpaquePointer?
        guard git_commit_lookup(&commit, pointer, &id) == 0, let commit else { return try body(nil) }
        defer { git_commit_free(commit) }
        return try body(commit)
    }

    /// The contents of the file at `path` (relative to the root) in `commit`; nil when it has no
    /// such file (or the path is a directory).
    func file(_ path: String, in commit: OpaquePointer) throws(GitError) -> Data? {
        var tree: OpaquePointer?
        guard git_commit_tree(&tree, commit) == 0, let tree else {
            throw .failed(operation: "reading the tree of \(hex(git_commit_id(commit)))", detail: lastGitMessage())
        }
        defer { git_tree_free(tree) }
        var entry: OpaquePointer?
        guard git_tree_entry_bypath(&entry, tree, path) == 0, let entry else { return nil }
        defer { git_tree_entry_free(entry) }
        var blob: OpaquePointer?
        guard git_tree_entry_type(entry) == GIT_OBJECT_BLOB, git_blob_lookup(&blob, pointer, git_tree_entry_id(entry)) == 0, let blob else {
            return nil
        }
        defer { git_blob_free(blob) }
        return Data(bytes: git_blob_rawcontent(blob), count: Int(git_blob_rawsize(blob)))
    }

    func commit(_ pointer: OpaquePointer) -> Commit {
        let author = git_commit_author(pointer)
        return Commit(
            sha: hex(git_commit_id(pointer)),
            author: author.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? "",
            email: author.flatMap { $0.pointee.email.map { String(cString: $0) } } ?? "",
            date: Date(timeIntervalSince1970: TimeInterval(git_commit_time(pointer))),
            subject: git_commit_summary(pointer).map { String(cString: $0) } ?? "")
    }
}
