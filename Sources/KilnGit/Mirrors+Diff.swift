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
    /// The lines a pull request changed: for each file of `head` that differs from the merge
    /// base of `base` and `head`, the numbers (1-based, in `head`) of its added or changed lines.
    /// Kiln's own reading of the diff (libgit2, renames followed), not the forge's: where review
    /// comments may go. A deleted file has none.
    public func changedLines(of repository: Repository, base: String, head: String) async throws(GitError) -> ChangedLines {
        let mirror = path(for: repository.url)
        return try await onGitThread { () throws(GitError) -> ChangedLines in
            let (opened, message) = GitRepository.open(mirror)
            guard let repo = opened else { throw .corruptMirror(path: mirror, detail: message) }
            guard var baseID = oid(base), var headID = oid(head) else { throw .commitNotFound(commit: base, url: repository.url.redacted) }
            var mergeBase = git_oid()
            guard git_merge_base(&mergeBase, repo.pointer, &baseID, &headID) == 0 else {
                throw .failed(operation: "finding the merge base of \(base.prefix(10)) and \(head.prefix(10))", detail: lastGitMessage())
            }
            var baseTree: OpaquePointer?
            var headTree: OpaquePointer?
            defer {
                git_tree_free(baseTree)
                git_tree_free(headTree)
            }
            guard Self.tree(&baseTree, of: &mergeBase, in: repo.pointer), Self.tree(&headTree, of: &headID, in: repo.pointer) else {
                throw .failed(operation: "reading the trees of \(base.prefix(10)) and \(head.prefix(10))", detail: lastGitMessage())
            }
            var options = git_diff_options()
            git_diff_options_init(&options, UInt32(GIT_DIFF_OPTIONS_VERSION))
            options.context_lines = 0
            var diff: OpaquePointer?
            guard git_diff_tree_to_tree(&diff, repo.pointer, baseTree, headTree, &options) == 0, let diff else {
                throw .failed(operation: "diffing \(base.prefix(10))...\(head.prefix(10))", detail: lastGitMessage())
            }
            defer { git_diff_free(diff) }
            var find = git_diff_find_options()
            git_diff_find_options_init(&find, UInt32(GIT_DIFF_FIND_OPTIONS_VERSION))
            find.flags = GIT_DIFF_FIND_RENAMES.rawValue
            git_diff_find_similar(diff, &find)
            var changed = ChangedLines()
            for index in 0..<git_diff_num_deltas(diff) {
                var patch: OpaquePointer?
                guard git_patch_from_diff(&patch, diff, index) == 0, let patch else { continue }
                defer { git_patch_free(patch) }
                guard let delta = git_patch_get_delta(patch), let path = delta.pointee.new_file.path.map({ String(cString: $0) }),
                    delta.pointee.status != GIT_DELTA_DELETED
                else { continue }
                var lines = Set<Int>()
                for hunk in 0..<git_patch_num_hunks(patch) {
                    for number in 0..<Int(git_patch_num_lines_in_hunk(patch, hunk)) {
                        var line: UnsafePointer<git_diff_line>?
                        guard git_patch_get_line_in_hunk(&line, patch, hunk, number) == 0, let line,
                            line.pointee.origin == CChar(UInt8(ascii: "+")), line.pointee.new_lineno > 0
                        else { continue }
                        lines.insert(Int(line.pointee.new_lineno))
                    }
                }
                if !lines.isEmpty { changed.lines[path] = lines }
            }
            return changed
        }
    }

    private static func tree(_ tree: inout OpaquePointer?, of id: inout git_oid, in repository: OpaquePointer) -> Bool {
        var commit: OpaquePointer?
        guard git_commit_lookup(&commit, repository, &id) == 0, let commit else { return false }
        defer { git_commit_free(commit) }
        return git_commit_tree(&tree, commit) == 0
    }
}
