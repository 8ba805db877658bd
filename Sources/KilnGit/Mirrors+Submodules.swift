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

/// Submodules are checked out the way bots' repositories are: each submodule's URL gets a mirror
/// of its own (fetched only when it lacks the pinned commit), and the submodule's directory is a
/// workspace repository that borrows that mirror's objects.
///
/// libgit2's submodule API is not used: it reads the configuration through regular expressions
/// that leak in Debian's libgit2 1.5, about 40 KB per submodule for every integration. It would
/// also clone each submodule again whenever a workspace is recreated.
extension Mirrors {
    /// A submodule of a checked-out commit: where it goes, where it comes from, what it pins.
    struct Submodule: Sendable {
        var name: String
        var path: String
        var url: RepositoryURL
        var commit: String
    }

    /// The submodules `.gitmodules` declares that `commit` really has (a gitlink at the path),
    /// with relative URLs resolved against `parent`. Each one's URL is also recorded in the
    /// workspace's config (redacted), so that `git submodule` sees them as initialised.
    static func submodules(of workspace: GitRepository, at commit: OpaquePointer, directory: String, parent: RepositoryURL) throws(GitError)
        -> [Submodule]
    {
        let file = directory + "/.gitmodules"
        guard FileManager.default.fileExists(atPath: file) else { return [] }
        let found = try declared(in: file, at: commit, parent: parent, relativeTo: directory)
        guard !found.isEmpty else { return [] }
        var local: OpaquePointer?
        guard git_repository_config(&local, workspace.pointer) == 0, let local else {
            throw .failed(operation: "opening the config of \(directory)", detail: lastGitMessage())
        }
        defer { git_config_free(local) }
        for submodule in found { git_config_set_string(local, "submodule.\(submodule.name).url", submodule.url.redacted) }
        return found
    }

    /// The submodules of `commit` in a bare repository (a dependency's mirror), read from the
    /// commit's own `.gitmodules`; relative URLs are resolved against `parent`.
    static func submodules(in repository: GitRepository, at revision: String, parent: RepositoryURL) throws(GitError) -> [Submodule] {
        let text: Data? = try repository.withCommit(revision) { (commit) throws(GitError) -> Data? in
            guard let commit else { throw .commitNotFound(commit: revision, url: parent.redacted) }
            return try repository.file(".gitmodules", in: commit)
        }
        guard let text else { return [] }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-gitmodules-\(UUID().uuidString)").path
        guard FileManager.default.createFile(atPath: file, contents: text) else {
            throw .failed(operation: "reading the .gitmodules of \(revision)", detail: "cannot write \(file)")
        }
        // a leftover temporary file is written anew on the next read of .gitmodules
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try repository.withCommit(revision) { (commit) throws(GitError) -> [Submodule] in
            guard let commit else { return [] }
            return try declared(in: file, at: commit, parent: parent, relativeTo: "/")
        }
    }

    /// The submodules the `.gitmodules` file at `file` declares that `commit` has a gitlink for.
    private static func declared(in file: String, at commit: OpaquePointer, parent: RepositoryURL, relativeTo directory: String) throws(GitError)
        -> [Submodule]
    {
        var config: OpaquePointer?
        guard git_config_open_ondisk(&config, file) == 0, let config else {
            throw .failed(operation: "reading \(file)", detail: lastGitMessage())
        }
        defer { git_config_free(config) }
        guard let entries = configEntries(config) else { throw .failed(operation: "reading \(file)", detail: lastGitMessage()) }

        var paths: [String: String] = [:]
        var urls: [String: String] = [:]
        var order: [String] = []
        for (key, value) in entries where key.hasPrefix("submodule.") {
            let rest = key.dropFirst("submodule.".count)
            guard let dot = rest.lastIndex(of: ".") else { continue }
            let name = String(rest[..<dot])
            switch rest[rest.index(after: dot)...] {
            case "path": paths[name] = value
            case "url": urls[name] = value
            default: continue
            }
            if !order.contains(name) { order.append(name) }
        }

        var tree: OpaquePointer?
        guard git_commit_tree(&tree, commit) == 0, let tree else {
            throw .failed(operation: "reading the tree of \(directory)", detail: lastGitMessage())
        }
        defer { git_tree_free(tree) }

        var found: [Submodule] = []
        for name in order {
            guard let path = paths[name], let url = urls[name] else { continue }
            // Only a gitlink makes a submodule; its id is the pinned commit. Tree paths never
            // hold "..", so the submodule stays inside the workspace.
            var entry: OpaquePointer?
            guard git_tree_entry_bypath(&entry, tree, path) == 0, let entry else { continue }
            defer { git_tree_entry_free(entry) }
            guard git_tree_entry_type(entry) == GIT_OBJECT_COMMIT, let id = git_tree_entry_id(entry) else { continue }
            let resolved: RepositoryURL
            do {
                resolved = try RepositoryURL(parsing: resolve(url, against: parent.raw), relativeTo: directory)
            } catch {
                throw .failed(operation: "reading submodule '\(name)' of \(directory)", detail: "its url \(scrubCredentials(url)): \(error)")
            }
            found.append(Submodule(name: name, path: path, url: resolved, commit: hex(id)))
        }
        return found
    }

    /// A submodule URL as git reads it: `./x` and `../x` are relative to the parent repository's
    /// URL (`https://host/org/app.git` + `../lib.git` is `https://host/org/lib.git`, and
    /// `git@host:org/app` + `../lib` is `git@host:org/lib`); anything else stands as written.
    static func resolve(_ url: String, against parent: String) -> String {
        guard url.hasPrefix("./") || url.hasPrefix("../") else { return url }
        var base = Substring(parent)
        while base.hasSuffix("/") { base = base.dropLast() }
        var rest = Substring(url)
        while true {
            if rest.hasPrefix("./") {
                rest = rest.dropFirst(2)
            } else if rest.hasPrefix("../") {
                rest = rest.dropFirst(3)
                if let slash = base.lastIndex(of: "/"), !base[..<slash].hasSuffix("/") {
                    base = base[..<slash]
                } else if let colon = base.lastIndex(of: ":"), !base.contains("://") {
                    base = base[...colon]
                }
            } else {
                break
            }
        }
        return base.hasSuffix(":") ? String(base + rest) : base + "/" + rest
    }

    /// Makes sure the mirror of `repository` has `commit`: cloned on first use, fetched only when
    /// the commit is missing, re-cloned when it is damaged (and `log` is told so). A commit's
    /// objects never change, so one already here needs no round trip to the remote: a pinned
    /// submodule commit rarely moves, and a push that queues many bots of one repository is
    /// fetched by the first of them on each host.
    public func ensureMirror(
        of repository: Repository, contains commit: String, log: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(GitError) {
        let sshKeyFile = sshKeyFile
        try await withMirror(of: repository) { (path, knownHosts) throws(GitError) in
            let has = { () throws(GitError) -> Bool in try GitRepository.open(path).0?.withCommit(commit) { $0 != nil } ?? false }
            if try has() { return }
            try Self.updateBlocking(repository.url, path: path, sshKeyFile: sshKeyFile, knownHosts: knownHosts, log: log) {
                (mirror) throws(GitError) in
                guard try mirror.withCommit(commit, { $0 != nil }) else { throw .commitNotFound(commit: commit, url: repository.url.redacted) }
            }
        }
    }
}
