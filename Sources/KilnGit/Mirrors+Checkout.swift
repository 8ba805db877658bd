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
    /// Checks `commit` out into `workspace`, forced: local changes and untracked files are
    /// discarded, while ignored build output (and always `.build/`) stays for an incremental build.
    /// Submodules follow, recursively, at the commits their parent pins.
    ///
    /// The workspace is a repository of its own that borrows the mirror's objects (git's
    /// alternates), so a checkout copies no history; credentials never reach its config, which
    /// a build can read.
    public func checkout(_ commit: String, of repository: Repository, into workspace: String) async throws(GitError) {
        try await checkout(commit, of: repository, into: workspace, depth: 0)
    }

    private func checkout(_ commit: String, of repository: Repository, into workspace: String, depth: Int) async throws(GitError) {
        // Alternates must name the mirror absolutely: a relative path would be read from inside .git.
        let mirror = URL(fileURLWithPath: path(for: repository.url)).standardizedFileURL.path
        let submodules = try await onGitThread { () throws(GitError) -> [Submodule] in
            let checkout = try Self.workspaceRepository(at: workspace, mirror: mirror, url: repository.url)
            return try checkout.withCommit(commit) { (pointer) throws(GitError) -> [Submodule] in
                guard let pointer else { throw GitError.commitNotFound(commit: commit, url: repository.url.redacted) }
                var options = git_checkout_options()
                git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION))
                options.checkout_strategy = GIT_CHECKOUT_FORCE.rawValue | GIT_CHECKOUT_REMOVE_UNTRACKED.rawValue
                guard git_checkout_tree(checkout.pointer, pointer, &options) == 0,
                    git_repository_set_head_detached(checkout.pointer, git_commit_id(pointer)) == 0
                else {
                    throw GitError.failed(operation: "checking out \(commit) into \(workspace)", detail: lastGitMessage())
                }
                return try Self.submodules(of: checkout, at: pointer, directory: workspace, parent: repository.url)
            }
        }
        guard !submodules.isEmpty else { return }
        guard depth < 8 else {
            throw .failed(operation: "checking out the submodules of \(workspace)", detail: "submodules nest more than 8 deep")
        }
        for submodule in submodules {
            let nested = Repository(url: submodule.url, caFile: repository.caFile)
            try await ensureMirror(of: nested, contains: submodule.commit)
            try await checkout(submodule.commit, of: nested, into: workspace + "/" + submodule.path, depth: depth + 1)
        }
    }

    /// Opens the workspace's repository, creating it on first use, pointed at the mirror's objects.
    private static func workspaceRepository(at workspace: String, mirror: String, url: RepositoryURL) throws(GitError) -> GitRepository {
        let gitDirectory = workspace + "/.git"
        var isDirectory: ObjCBool = false
        let existing =
            FileManager.default.fileExists(atPath: gitDirectory, isDirectory: &isDirectory) && isDirectory.boolValue
            ? GitRepository.open(workspace).0 : nil
        if existing == nil {
            // A workspace that is not a repository (or a damaged one) is rebuilt from scratch, and
            // so is one whose .git is a gitlink file (a submodule as git itself lays it out).
            try? FileManager.default.removeItem(atPath: workspace)
            do {
                try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
            } catch {
                throw .failed(operation: "creating the workspace \(workspace)", detail: "\(error)")
            }
            do {
                try createRepository(at: gitDirectory, url: url)
            } catch {
                throw .failed(operation: "creating a repository at \(workspace)", detail: "\(error)")
            }
        }
        let changed: Bool
        do {
            // Written only when they differ (a new workspace, a moved mirror).
            let alternates = try write(mirror + "/objects\n", to: gitDirectory + "/objects/info/alternates")
            let exclude = try write("/.build/\n", to: gitDirectory + "/info/exclude")
            changed = alternates || exclude
        } catch {
            throw .failed(operation: "preparing the workspace \(workspace)", detail: "\(error)")
        }
        if let existing, !changed { return existing }
        // Reopen so libgit2 reads the alternates written above.
        guard let reopened = GitRepository.open(workspace).0 else {
            throw .failed(operation: "opening the workspace \(workspace)", detail: lastGitMessage())
        }
        return reopened
    }

    /// Lays out a new workspace's `.git` as `git init` and `git remote add origin` would, each
    /// file written once. libgit2's init rewrote `config` through a lock file six times and
    /// probed the file system with files it then deleted, ten inodes freed for each new
    /// workspace: on ext4 without a journal every later file of the disk is allocated past the
    /// inodes freed in the last 30 s, and 432 new workspaces at once spent 14 % of the CPU there.
    /// `HEAD` comes last: until it is there, the directory is no repository, and the next
    /// checkout starts it again.
    private static func createRepository(at gitDirectory: String, url: RepositoryURL) throws {
        for directory in ["objects/info", "objects/pack", "refs/heads", "refs/tags", "info"] {
            try FileManager.default.createDirectory(atPath: gitDirectory + "/" + directory, withIntermediateDirectories: true)
        }
        // origin names the repository for scripts that ask git; redacted, it keeps secrets out.
        // No reflog: nobody reads a workspace's, and it would be a file more for each checkout.
        let config = """
            [core]
            \trepositoryformatversion = 0
            \tfilemode = true
            \tbare = false
            \tlogallrefupdates = false
            [remote "origin"]
            \turl = \(configValue(url.redacted))
            \tfetch = +refs/heads/*:refs/remotes/origin/*

            """
        try config.write(toFile: gitDirectory + "/config", atomically: false, encoding: .utf8)
        try "ref: refs/heads/main\n".write(toFile: gitDirectory + "/HEAD", atomically: false, encoding: .utf8)
    }

    /// `value` quoted for a git config file.
    static func configValue(_ value: String) -> String {
        var quoted = "\""
        for character in value {
            switch character {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            default: quoted.append(character)
            }
        }
        return quoted + "\""
    }

    /// Writes `text` to `path` unless the file already holds it; returns whether it wrote. In
    /// place, not atomically: an atomic write waits for the disk (an fsync; two per new
    /// workspace), and a file cut short by a crash differs from `text` at the next checkout,
    /// which writes it again.
    private static func write(_ text: String, to path: String) throws -> Bool {
        if let data = FileManager.default.contents(atPath: path), data == Data(text.utf8) { return false }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return true
    }
}
