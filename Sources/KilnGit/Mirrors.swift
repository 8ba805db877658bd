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

/// The bare mirrors of the repositories bots watch, under `<data>/mirrors/`, and everything Kiln
/// reads from them: remote heads, checkouts into workspaces, commit ranges and blame.
///
/// One mirror per repository (bots that share a repository share its mirror), cloned on first use
/// and updated by incremental fetch afterwards. Updates of one mirror are serialised; different
/// mirrors proceed in parallel. Every blocking libgit2 call runs on a thread of its own, and every
/// URL in an error or a log line is redacted.
public struct Mirrors: Sendable {
    public let directory: String
    /// Private key for ssh:// and git@host:path repositories.
    public let sshKeyFile: String?
    private let locks = KeyedLock()

    static let refspecs = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]

    public init(directory: String, sshKeyFile: String? = nil) {
        self.directory = directory
        self.sshKeyFile = sshKeyFile
    }

    /// The ssh host keys seen so far (trusted on first use).
    var knownHosts: KnownHosts { KnownHosts(path: directory + "/known_hosts") }

    /// Where the mirror of `url` lives: readable, and unique per repository identity.
    public func path(for url: RepositoryURL) -> String {
        let identity = url.identity
        let readable = String(identity.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }.prefix(80))
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identity.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let suffix = String(hash, radix: 16)
        return directory + "/" + readable.trimmingCharacters(in: CharacterSet(charactersIn: "_")) + "-" + suffix + ".git"
    }

    // MARK: Updating

    /// Brings the mirror of `repository` up to date (cloning it on first use) and returns the
    /// commit its branch points at. A damaged mirror is re-cloned once, and `log` is told so.
    public func update(_ repository: Repository, log: @escaping @Sendable (String) -> Void = { _ in }) async throws(GitError) -> String {
        let sshKeyFile = sshKeyFile
        return try await withMirror(of: repository) { (path, knownHosts) throws(GitError) -> String in
            try Self.updateBlocking(repository.url, path: path, sshKeyFile: sshKeyFile, knownHosts: knownHosts, log: log) {
                (mirror) throws(GitError) -> String in
                try Self.branchHead(repository, in: mirror)
            }
        }
    }

    /// Brings the mirror up to date together with a pull request's head, which the forge keeps
    /// under `ref` (`refs/pull/N/head`, `refs/merge-requests/N/head`), and returns the commits
    /// the branch and the pull request point at. The ref is kept under its own name in the mirror.
    public func update(
        _ repository: Repository, pullRef ref: String, log: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws(GitError) -> (base: String, head: String) {
        let sshKeyFile = sshKeyFile
        return try await withMirror(of: repository) { (path, knownHosts) throws(GitError) -> (base: String, head: String) in
            try Self.updateBlocking(
                repository.url, path: path, sshKeyFile: sshKeyFile, knownHosts: knownHosts, extraRefspecs: ["+\(ref):\(ref)"], log: log
            ) { (mirror) throws(GitError) -> (base: String, head: String) in
                let base = try Self.branchHead(repository, in: mirror)
                guard let head = try mirror.resolve(ref) else { throw .refNotFound(ref: ref, url: repository.url.redacted) }
                return (base, head)
            }
        }
    }

    /// Runs `body` on a git thread, holding the lock of `repository`'s mirror, with the
    /// repository's ca-file trusted. `body` gets the mirror's path and the known ssh hosts.
    func withMirror<T: Sendable>(
        of repository: Repository, _ body: @escaping @Sendable (_ path: String, _ knownHosts: KnownHosts) throws(GitError) -> T
    ) async throws(GitError) -> T {
        let path = path(for: repository.url)
        let directory = directory
        let knownHosts = knownHosts
        return try await locks.withLock(path) { () throws(GitError) -> T in
            try await onGitThread { () throws(GitError) -> T in
                if let caFile = repository.caFile { try TrustedCertificates.include(caFile, directory: directory) }
                return try body(path, knownHosts)
            }
        }
    }

    /// Clones the mirror on first use and fetches into it afterwards, then `read`s it, opened
    /// once for both. A damaged mirror is cloned again, once, and `log` is told so.
    static func updateBlocking<T>(
        _ url: RepositoryURL, path: String, sshKeyFile: String?, knownHosts: KnownHosts, extraRefspecs: [String] = [], log: (String) -> Void,
        read: (GitRepository) throws(GitError) -> T
    ) throws(GitError) -> T {
        func open() throws(GitError) -> GitRepository {
            let (opened, message) = GitRepository.open(path)
            guard let mirror = opened else { throw .corruptMirror(path: path, detail: message) }
            return mirror
        }
        /// A new clone has the branches; other refs are fetched into it at once.
        func cloneWithExtras() throws(GitError) -> GitRepository {
            try clone(url, into: path, sshKeyFile: sshKeyFile, knownHosts: knownHosts)
            let mirror = try open()
            if !extraRefspecs.isEmpty { try fetch(url, into: mirror, refspecs: extraRefspecs, sshKeyFile: sshKeyFile, knownHosts: knownHosts) }
            return mirror
        }
        if !FileManager.default.fileExists(atPath: path) {
            return try read(try cloneWithExtras())
        }
        do throws(GitError) {
            let mirror = try open()
            try fetch(url, into: mirror, refspecs: refspecs + extraRefspecs, sshKeyFile: sshKeyFile, knownHosts: knownHosts)
            return try read(mirror)
        } catch .corruptMirror(_, let detail) {
            log("the mirror \(path) is damaged (\(detail)); cloning \(url.redacted) again")
            // the clone that follows fails, with git's own words, if the damaged mirror is still there
            try? FileManager.default.removeItem(atPath: path)
            return try read(try cloneWithExtras())
        }
    }

    /// Clones into a temporary directory and renames it into place, so that a clone cut short
    /// never looks like a mirror.
    private static func clone(_ url: RepositoryURL, into path: String, sshKeyFile: String?, knownHosts: KnownHosts) throws(GitError) {
        let temporary = path + ".partial-\(UUID().uuidString.prefix(8))"
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        } catch {
            throw .failed(operation: "creating the mirrors directory", detail: "\(error)")
        }
        // a leftover temporary clone is replaced by the next one
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        // git_clone copies a local repository's objects directly (as `git clone` does) instead of
        // packing them again through a transport, which is several times slower.
        let credentials = Credentials(url: url, sshKeyFile: sshKeyFile, knownHosts: knownHosts)
        var options = git_clone_options()
        git_clone_options_init(&options, UInt32(GIT_CLONE_OPTIONS_VERSION))
        options.bare = 1
        options.local = GIT_CLONE_LOCAL_AUTO
        options.fetch_opts.callbacks = credentials.callbacks()
        options.fetch_opts.update_fetchhead = 0
        options.fetch_opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL
        options.remote_cb = { out, repository, name, url, _ in
            // Branches land as branches (a mirror), not as remote-tracking refs.
            createRemote(out, in: repository, named: name, url: url, fetchspec: "+refs/heads/*:refs/heads/*")
        }
        var cloned: OpaquePointer?
        let code = withExtendedLifetime(credentials) { git_clone(&cloned, url.raw, temporary, &options) }
        guard code == 0, let cloned else {
            throw classify(code: code, message: lastGitMessage(), operation: "cloning", url: url)
        }
        // Later fetches name the URL themselves; the mirror's config keeps no credentials.
        git_remote_set_url(cloned, "origin", url.redacted)
        git_repository_free(cloned)
        do {
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch {
            throw .failed(operation: "moving the new mirror into \(path)", detail: "\(error)")
        }
    }

    /// Fetches every branch and tag, pruning what the remote deleted. The URL is given to an
    /// anonymous remote, so credentials in it are never written into the mirror's config.
    private static func fetch(
        _ url: RepositoryURL, into mirror: GitRepository, refspecs: [String], sshKeyFile: String?, knownHosts: KnownHosts
    ) throws(GitError) {
        var remote: OpaquePointer?
        var createOptions = git_remote_create_options()
        git_remote_create_options_init(&createOptions, UInt32(GIT_REMOTE_CREATE_OPTIONS_VERSION))
        createOptions.repository = mirror.pointer
        // Anonymous (no name). Skipping url.<base>.insteadOf avoids a leak in Debian's libgit2 1.5
        // (see createRemote), ~20 KB per fetch.
        createOptions.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF.rawValue | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC.rawValue
        guard git_remote_create_with_opts(&remote, url.raw, &createOptions) == 0, let remote else {
            throw classify(code: -1, message: lastGitMessage(), operation: "fetching", url: url)
        }
        defer { git_remote_free(remote) }
        let credentials = Credentials(url: url, sshKeyFile: sshKeyFile, knownHosts: knownHosts)
        var options = git_fetch_options()
        git_fetch_options_init(&options, UInt32(GIT_FETCH_OPTIONS_VERSION))
        options.callbacks = credentials.callbacks()
        options.prune = GIT_FETCH_PRUNE
        options.update_fetchhead = 0
        options.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE
        let code = withStrArray(refspecs) { refspecs in
            withExtendedLifetime(credentials) { git_remote_fetch(remote, refspecs, &options, "kiln: fetch") }
        }
        guard code == 0 else {
            let message = lastGitMessage()
            let error = classify(code: code, message: message, operation: "fetching", url: url)
            // A fetch that fails for a reason of the remote's is reported; one that fails inside
            // the local repository means the mirror is damaged.
            if case .failed = error, isLocalDamage(message) {
                throw .corruptMirror(path: git_repository_path(mirror.pointer).map { String(cString: $0) } ?? "", detail: message)
            }
            throw error
        }
    }

    private static func isLocalDamage(_ message: String) -> Bool {
        let lowered = message.lowercased()
        return ["corrupt", "object not found", "failed to read", "invalid", "odb", "packfile", "index", "reference", "lock"].contains {
            lowered.contains($0)
        }
    }

    private static func branchHead(_ repository: Repository, in mirror: GitRepository) throws(GitError) -> String {
        guard let head = try mirror.resolve("refs/heads/" + repository.branch) else {
            throw .branchNotFound(branch: repository.branch, url: repository.url.redacted)
        }
        return head
    }

    // MARK: Remote head

    /// The commit the branch points at on the remote, asked of the remote without fetching objects.
    public func remoteHead(_ repository: Repository) async throws(GitError) -> String {
        let sshKeyFile = sshKeyFile
        let directory = directory
        let knownHosts = knownHosts
        return try await onGitThread { () throws(GitError) -> String in
            if let caFile = repository.caFile { try TrustedCertificates.include(caFile, directory: directory) }
            let url = repository.url
            var remote: OpaquePointer?
            guard git_remote_create_detached(&remote, url.raw) == 0, let remote else {
                throw classify(code: -1, message: lastGitMessage(), operation: "connecting to", url: url)
            }
            defer { git_remote_free(remote) }
            let credentials = Credentials(url: url, sshKeyFile: sshKeyFile, knownHosts: knownHosts)
            var callbacks = credentials.callbacks()
            let code = withExtendedLifetime(credentials) { git_remote_connect(remote, GIT_DIRECTION_FETCH, &callbacks, nil, nil) }
            guard code == 0 else { throw classify(code: code, message: lastGitMessage(), operation: "connecting to", url: url) }
            defer { git_remote_disconnect(remote) }
            var heads: UnsafeMutablePointer<UnsafePointer<git_remote_head>?>?
            var count = 0
            guard git_remote_ls(&heads, &count, remote) == 0, let heads else {
                throw classify(code: -1, message: lastGitMessage(), operation: "listing the branches of", url: url)
            }
            let wanted = "refs/heads/" + repository.branch
            for index in 0..<count {
                guard let head = heads[index], let name = head.pointee.name, String(cString: name) == wanted else { continue }
                return withUnsafePointer(to: head.pointee.oid) { hex($0) }
            }
            throw .branchNotFound(branch: repository.branch, url: url.redacted)
        }
    }
}

/// Passes `strings` to libgit2 as a `git_strarray` that lives for the duration of `body`.
func withStrArray<T>(_ strings: [String], _ body: (UnsafePointer<git_strarray>) -> T) -> T {
    var pointers = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeMutableBufferPointer { buffer in
        var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
        return body(&array)
    }
}
