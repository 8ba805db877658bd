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

extension Mirrors {
    /// The commits an integration of `head` covers, newest first: those reachable from `head` but
    /// not from `previous` (the last integrated commit), at most `limit` of them.
    ///
    /// - With no previous integration, the head commit alone.
    /// - Merges: both parents' new commits are listed, the merge commit too.
    /// - A force-push (previous no longer an ancestor): the commits of the new history that the old
    ///   one did not contain; nothing of the discarded history is listed.
    /// - A previous commit the mirror does not know: the head commit alone.
    public func commits(of repository: Repository, from previous: String?, to head: String, limit: Int = 250) async throws(GitError) -> [Commit] {
        let mirror = path(for: repository.url)
        return try await onGitThread { () throws(GitError) -> [Commit] in
            let (opened, message) = GitRepository.open(mirror)
            guard let repo = opened else { throw .corruptMirror(path: mirror, detail: message) }
            guard var headID = oid(head) else { throw .commitNotFound(commit: head, url: repository.url.redacted) }
            let known: Bool = try repo.withCommit(previous ?? "") { $0 != nil }
            guard let previous, known else {
                return try repo.withCommit(head) { (pointer) throws(GitError) -> [Commit] in
                    guard let pointer else { throw GitError.commitNotFound(commit: head, url: repository.url.redacted) }
                    return [repo.commit(pointer)]
                }
            }
            var walker: OpaquePointer?
            guard git_revwalk_new(&walker, repo.pointer) == 0, let walker else {
                throw .failed(operation: "walking the history of \(repository.url.redacted)", detail: lastGitMessage())
            }
            defer { git_revwalk_free(walker) }
            git_revwalk_sorting(walker, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_TIME.rawValue)
            guard git_revwalk_push(walker, &headID) == 0 else { throw .commitNotFound(commit: head, url: repository.url.redacted) }
            if var previousID = oid(previous) { git_revwalk_hide(walker, &previousID) }
            var commits: [Commit] = []
            var next = git_oid()
            while commits.count < limit, git_revwalk_next(&next, walker) == 0 {
                try repo.withCommit(hex(&next)) { (pointer) throws(GitError) in
                    if let pointer { commits.append(repo.commit(pointer)) }
                }
            }
            return commits
        }
    }

    /// Whether `ancestor` is `commit` or one of its ancestors; false when either is unknown.
    public func isAncestor(_ ancestor: String, of commit: String, in repository: Repository) async throws(GitError) -> Bool {
        let mirror = path(for: repository.url)
        return try await onGitThread { () throws(GitError) -> Bool in
            let (opened, message) = GitRepository.open(mirror)
            guard let repo = opened else { throw .corruptMirror(path: mirror, detail: message) }
            guard var ancestorID = oid(ancestor), var commitID = oid(commit) else { return false }
            if ancestor == commit { return true }
            return git_graph_descendant_of(repo.pointer, &commitID, &ancestorID) == 1
        }
    }

    /// Who last changed `line` (1-based) of `file` (relative to the repository root) as of `commit`;
    /// nil when the file or line does not exist there.
    public func blame(of repository: Repository, file: String, line: Int, at commit: String) async throws(GitError) -> BlameLine? {
        let mirror = path(for: repository.url)
        return try await onGitThread { () throws(GitError) -> BlameLine? in
            let (opened, message) = GitRepository.open(mirror)
            guard let repo = opened else { throw .corruptMirror(path: mirror, detail: message) }
            guard let commitID = oid(commit), line > 0 else { return nil }
            var options = git_blame_options()
            git_blame_options_init(&options, UInt32(GIT_BLAME_OPTIONS_VERSION))
            options.newest_commit = commitID
            var blame: OpaquePointer?
            guard git_blame_file(&blame, repo.pointer, file, &options) == 0, let blame else { return nil }
            defer { git_blame_free(blame) }
            // libgit2 answers a line past the end of the file with the last hunk: check the range.
            guard let hunk = git_blame_get_hunk_byline(blame, line), hunk.pointee.final_start_line_number <= line,
                line < hunk.pointee.final_start_line_number + hunk.pointee.lines_in_hunk
            else { return nil }
            let signature = hunk.pointee.final_signature
            return BlameLine(
                commit: withUnsafePointer(to: hunk.pointee.final_commit_id) { hex($0) },
                author: signature.flatMap { $0.pointee.name.map { String(cString: $0) } } ?? "",
                email: signature.flatMap { $0.pointee.email.map { String(cString: $0) } } ?? "")
        }
    }

    /// The file at `path` (relative to the repository's root) in `commit`, from the mirror as it
    /// is (a page never waits for a fetch); nil when the commit has no such file. What a page
    /// shows of a failure's source (`/bots/{bot}/integrations/{n}/source/…`).
    public func file(_ path: String, at commit: String, of repository: Repository) async throws(GitError) -> Data? {
        let mirror = self.path(for: repository.url)
        return try await onGitThread { () throws(GitError) -> Data? in
            guard let repo = GitRepository.open(mirror).0 else { throw .mirrorMissing(url: repository.url.redacted) }
            return try repo.withCommit(commit) { (pointer) throws(GitError) -> Data? in
                guard let pointer else { throw .commitNotFound(commit: commit, url: repository.url.redacted) }
                return try repo.file(path, in: pointer)
            }
        }
    }
}
