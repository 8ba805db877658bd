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

/// The mirrors of the packages that bots' packages depend on, under `<data>/mirrors/dependencies/`,
/// shared by every bot of the host: each a bare libgit2 mirror like a bot's repository's, fetched
/// only when it lacks a revision a build needs, and readable by sandboxed builds (the mirrors are
/// bound read-only into the sandbox). Builds reach them through git's URL rewriting (`gitConfig`),
/// so `Package.resolved` keeps its upstream URLs.
///
/// Fetching from upstream goes through the `url.<base>.insteadOf` rules of the host's own git
/// configuration, as `git` itself would (libgit2's own reading of them leaks, so Kiln reads them).
public struct DependencyMirrors: Sendable {
    let mirrors: Mirrors

    public var directory: String { mirrors.directory }

    public init(directory: String, sshKeyFile: String? = nil) {
        mirrors = Mirrors(directory: directory, sshKeyFile: sshKeyFile)
    }

    /// Whether a mirror had what was asked, or was fetched for it.
    public enum Freshness: String, Sendable {
        case current
        case fetched
    }

    /// A dependency made ready: whether anything was fetched, and the URLs of the submodules
    /// (transitively) whose mirrors its revision needs too.
    public struct Mirrored: Sendable, Equatable {
        public var freshness: Freshness
        public var submodules: [String]

        public init(freshness: Freshness, submodules: [String]) {
            self.freshness = freshness
            self.submodules = submodules
        }
    }

    /// Makes the mirror of `location` hold `revision` (every branch and tag when nil), fetching
    /// from upstream only when it lacks it, and with a revision, the mirror of each submodule
    /// that revision pins hold its commit, as SwiftPM checks submodules out.
    public func ensure(_ location: String, revision: String?) async throws(GitError) -> Mirrored {
        var mirrored = Mirrored(freshness: try await ensureOne(location, revision: revision), submodules: [])
        guard let revision else { return mirrored }
        // Submodules of submodules, each once; a cycle or a very deep tree stops at the 8th level.
        var pending = [(location: location, revision: revision, depth: 0)]
        var seen: Set<String> = [location + "@" + revision]
        while let (parent, commit, depth) = pending.popLast(), depth < 8 {
            for submodule in try await submodules(of: parent, at: commit) where seen.insert(submodule.url.raw + "@" + submodule.commit).inserted {
                if try await ensureOne(submodule.url.raw, revision: submodule.commit) == .fetched { mirrored.freshness = .fetched }
                if !mirrored.submodules.contains(submodule.url.raw) { mirrored.submodules.append(submodule.url.raw) }
                pending.append((submodule.url.raw, submodule.commit, depth + 1))
            }
        }
        return mirrored
    }

    /// The submodules `revision` of the mirror of `location` pins.
    private func submodules(of location: String, at revision: String) async throws(GitError) -> [Mirrors.Submodule] {
        let url = try Self.url(location)
        return try await mirrors.withMirror(of: Repository(url: url)) { (path, _) throws(GitError) -> [Mirrors.Submodule] in
            let (opened, message) = GitRepository.open(path)
            guard let repository = opened else { throw .corruptMirror(path: path, detail: message) }
            return try Mirrors.submodules(in: repository, at: revision, parent: url)
        }
    }

    private static func url(_ location: String) throws(GitError) -> RepositoryURL {
        do {
            return try RepositoryURL(parsing: location, relativeTo: "/")
        } catch {
            throw .failed(operation: "reading the dependency URL \(location)", detail: "\(error)")
        }
    }

    /// Makes the mirror of `location` hold `revision`, as `ensure` says, without submodules.
    private func ensureOne(_ location: String, revision: String?) async throws(GitError) -> Freshness {
        let url = try Self.url(location)
        let path = mirrors.path(for: url)
        let fetched = try await mirrors.withMirror(of: Repository(url: url)) { (path, knownHosts) throws(GitError) -> Freshness in
            if let revision, FileManager.default.fileExists(atPath: path),
                (try? GitRepository.open(path).0?.withCommit(revision) { $0 != nil }) == true
            {
                return .current
            }
            // Only a fetch reads the host's git configuration for where upstream really is.
            let upstream = try Self.url(try Self.rewritten(location))
            try Mirrors.updateBlocking(upstream, path: path, sshKeyFile: mirrors.sshKeyFile, knownHosts: knownHosts, log: { _ in }) {
                (mirror) throws(GitError) in
                if let revision, try !mirror.withCommit(revision, { $0 != nil }) {
                    throw .commitNotFound(commit: revision, url: url.redacted)
                }
            }
            return .fetched
        }
        // Which URL the mirror stands for, for `gitConfig`; its date says when a build last
        // needed it, for `prune`.
        let marker = path + ".location"
        if FileManager.default.fileExists(atPath: marker) {
            // the date only orders mirrors for pruning: a stale one is pruned a day early at worst
            try? FileManager.default.setAttributes([.modificationDate: WallClock.system.now], ofItemAtPath: marker)
        } else {
            // without its .location the mirror is made again on next use
            try? Data(location.utf8).write(to: URL(fileURLWithPath: marker))
        }
        return fetched
    }

    /// Removes the mirrors no build has needed since `cutoff` (a dependency the packages
    /// dropped); returns their URLs.
    public func prune(unusedSince cutoff: Date) async -> [String] {
        var removed: [String] = []
        for (location, path) in mirrored() {
            let marker = path + ".location"
            guard let used = (try? FileManager.default.attributesOfItem(atPath: marker))?[.modificationDate] as? Date, used < cutoff,
                let url = try? Self.url(location)
            else { continue }
            let gone: Bool =
                // a mirror that cannot be opened is pruned on the next day's pass
                (try? await mirrors.withMirror(of: Repository(url: url)) { (path, _) throws(GitError) -> Bool in
                    // Marker first: a mirror without one is never offered to a build.
                    try? FileManager.default.removeItem(atPath: marker)
                    // a mirror left behind is pruned again on the next day's pass
                    try? FileManager.default.removeItem(atPath: path)
                    return !FileManager.default.fileExists(atPath: path)
                }) ?? false
            if gone { removed.append(location) }
        }
        return removed
    }

    /// Every mirrored dependency: its upstream URL and its mirror's path.
    public func mirrored() -> [(location: String, path: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".git.location") }.sorted().compactMap { name in
            let path = directory + "/" + String(name.dropLast(".location".count))
            guard FileManager.default.fileExists(atPath: path),
                let location = FileManager.default.contents(atPath: directory + "/" + name).map({ String(decoding: $0, as: UTF8.self) })
            else { return nil }
            return (location, path)
        }
    }

    /// A git configuration that sends each mirrored dependency's URL (with and without `.git`)
    /// to its mirror, of those `including` accepts: for a build's HOME, so that SwiftPM's `git`
    /// fetches from Kiln's mirrors.
    public func gitConfig(including: (String) -> Bool = { _ in true }) -> String {
        // git refuses file:// URLs for submodules unless told (CVE-2022-39253); these are Kiln's.
        var text = "# Written by Kiln for every integration: dependencies come from Kiln's mirrors.\n[protocol \"file\"]\n\tallow = always\n"
        for (location, path) in mirrored() where including(location) {
            let bare = location.hasSuffix(".git") ? String(location.dropLast(4)) : location
            text += "[url \"file://\(path)\"]\n\tinsteadOf = \(bare)\n\tinsteadOf = \(bare).git\n"
        }
        return text
    }

    /// `location` as the host's git configuration rewrites it (`url.<base>.insteadOf`: the
    /// longest matching prefix wins).
    static func rewritten(_ location: String) throws(GitError) -> String {
        let rules = try insteadOfRules()
        guard let rule = rules.filter({ location.hasPrefix($0.prefix) }).max(by: { $0.prefix.count < $1.prefix.count }) else { return location }
        return rule.base + location.dropFirst(rule.prefix.count)
    }

    /// The `url.<base>.insteadOf = <prefix>` rules of the system, global and XDG git configuration.
    static func insteadOfRules() throws(GitError) -> [(prefix: String, base: String)] {
        var config: OpaquePointer?
        guard git_config_open_default(&config) == 0, let config else { return [] }
        defer { git_config_free(config) }
        guard let entries = configEntries(config) else { throw .failed(operation: "reading git's configuration", detail: lastGitMessage()) }
        return entries.compactMap { key, value in
            guard key.hasPrefix("url."), key.lowercased().hasSuffix(".insteadof") else { return nil }
            return (value, String(key.dropFirst(4).dropLast(".insteadof".count)))
        }
    }
}

/// Every entry of `config`, in order; nil when it cannot be read. `git_config_foreach` without a
/// pattern compiles no regular expression (libgit2 1.5 leaks one's match data).
func configEntries(_ config: OpaquePointer) -> [(String, String)]? {
    final class Entries { var values: [(String, String)] = [] }
    let entries = Entries()
    let code = git_config_foreach(
        config,
        { entry, payload in
            guard let entry, let payload, let name = entry.pointee.name, let value = entry.pointee.value else { return 0 }
            Unmanaged<Entries>.fromOpaque(payload).takeUnretainedValue().values.append((String(cString: name), String(cString: value)))
            return 0
        }, Unmanaged.passUnretained(entries).toOpaque())
    return code == 0 ? entries.values : nil
}
