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

    /// Makes the mirror of `location` hold `revision` (every branch and tag when nil), fetching
    /// from upstream only when it lacks it. Returns whether it fetched.
    public func ensure(_ location: String, revision: String?) async throws(GitError) -> Freshness {
        let url: RepositoryURL
        do {
            url = try RepositoryURL(parsing: location, relativeTo: "/")
        } catch {
            throw .failed(operation: "reading the dependency URL \(location)", detail: "\(error)")
        }
        let path = mirrors.path(for: url)
        let fetched = try await mirrors.withMirror(of: Repository(url: url)) { (path, knownHosts) throws(GitError) -> Freshness in
            if let revision, FileManager.default.fileExists(atPath: path),
                (try? GitRepository.open(path).0?.withCommit(revision) { $0 != nil }) == true
            {
                return .current
            }
            // Only a fetch reads the host's git configuration for where upstream really is.
            let upstream: RepositoryURL
            do {
                upstream = try RepositoryURL(parsing: try Self.rewritten(location), relativeTo: "/")
            } catch {
                throw .failed(operation: "reading the dependency URL \(location)", detail: "\(error)")
            }
            try Mirrors.updateBlocking(upstream, path: path, sshKeyFile: mirrors.sshKeyFile, knownHosts: knownHosts, log: { _ in }) {
                (mirror) throws(GitError) in
                if let revision, try !mirror.withCommit(revision, { $0 != nil }) {
                    throw .commitNotFound(commit: revision, url: url.redacted)
                }
            }
            return .fetched
        }
        // Which URL the mirror stands for, for `gitConfig`.
        if !FileManager.default.fileExists(atPath: path + ".location") {
            try? Data(location.utf8).write(to: URL(fileURLWithPath: path + ".location"))
        }
        return fetched
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
        var text = "# Written by Kiln for every integration: dependencies come from Kiln's mirrors.\n"
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
