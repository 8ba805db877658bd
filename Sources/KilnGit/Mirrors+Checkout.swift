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
        // Alternates must name the mirror absolutely: a relative path would be read from inside .git.
        let mirror = URL(fileURLWithPath: path(for: repository.url)).standardizedFileURL.path
        let sshKeyFile = sshKeyFile
        try await onGitThread { () throws(GitError) in
            let checkout = try Self.workspaceRepository(at: workspace, mirror: mirror, url: repository.url)
            try checkout.withCommit(commit) { (pointer) throws(GitError) in
                guard let pointer else { throw GitError.commitNotFound(commit: commit, url: repository.url.redacted) }
                var options = git_checkout_options()
                git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION))
                options.checkout_strategy = GIT_CHECKOUT_FORCE.rawValue | GIT_CHECKOUT_REMOVE_UNTRACKED.rawValue
                guard git_checkout_tree(checkout.pointer, pointer, &options) == 0,
                    git_repository_set_head_detached(checkout.pointer, git_commit_id(pointer)) == 0
                else {
                    throw GitError.failed(operation: "checking out \(commit) into \(workspace)", detail: lastGitMessage())
                }
            }
            let credentials = Credentials(url: repository.url, sshKeyFile: sshKeyFile, knownHosts: knownHosts)
            try withExtendedLifetime(credentials) { () throws(GitError) in
                try Self.updateSubmodules(of: checkout, credentials: credentials, workspace: workspace)
            }
        }
    }

    /// Opens the workspace's repository, creating it on first use, pointed at the mirror's objects.
    private static func workspaceRepository(at workspace: String, mirror: String, url: RepositoryURL) throws(GitError) -> GitRepository {
        let gitDirectory = workspace + "/.git"
        let usable = FileManager.default.fileExists(atPath: gitDirectory) && GitRepository.open(workspace).0 != nil
        if !usable {
            // A workspace that is not a repository (or a damaged one) is rebuilt from scratch.
            try? FileManager.default.removeItem(atPath: workspace)
            do {
                try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
            } catch {
                throw .failed(operation: "creating the workspace \(workspace)", detail: "\(error)")
            }
            let created = try GitRepository.initialize(workspace, bare: false)
            // Relative submodule URLs resolve against origin; the redacted URL keeps secrets out.
            var remote: OpaquePointer?
            if createRemote(&remote, in: created.pointer, named: "origin", url: url.redacted) == 0 { git_remote_free(remote) }
        }
        do {
            try FileManager.default.createDirectory(atPath: gitDirectory + "/objects/info", withIntermediateDirectories: true)
            try (mirror + "/objects\n").write(toFile: gitDirectory + "/objects/info/alternates", atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: gitDirectory + "/info", withIntermediateDirectories: true)
            try "/.build/\n".write(toFile: gitDirectory + "/info/exclude", atomically: true, encoding: .utf8)
        } catch {
            throw .failed(operation: "preparing the workspace \(workspace)", detail: "\(error)")
        }
        // Reopen so libgit2 reads the alternates written above.
        guard let reopened = GitRepository.open(workspace).0 else {
            throw .failed(operation: "opening the workspace \(workspace)", detail: lastGitMessage())
        }
        return reopened
    }

    private static func updateSubmodules(of repository: GitRepository, credentials: Credentials, workspace: String, depth: Int = 0) throws(GitError) {
        guard depth < 8 else { return }
        final class Names { var values: [String] = [] }
        let names = Names()
        let code = git_submodule_foreach(
            repository.pointer,
            { _, name, payload in
                guard let name, let payload else { return 0 }
                Unmanaged<Names>.fromOpaque(payload).takeUnretainedValue().values.append(String(cString: name))
                return 0
            }, Unmanaged.passUnretained(names).toOpaque())
        guard code == 0 else { throw .failed(operation: "listing the submodules of \(workspace)", detail: lastGitMessage()) }
        for name in names.values {
            var submodule: OpaquePointer?
            guard git_submodule_lookup(&submodule, repository.pointer, name) == 0, let submodule else {
                throw .failed(operation: "reading submodule '\(name)'", detail: lastGitMessage())
            }
            defer { git_submodule_free(submodule) }
            var options = git_submodule_update_options()
            git_submodule_update_options_init(&options, UInt32(GIT_SUBMODULE_UPDATE_OPTIONS_VERSION))
            options.checkout_opts.checkout_strategy = GIT_CHECKOUT_FORCE.rawValue | GIT_CHECKOUT_REMOVE_UNTRACKED.rawValue
            options.fetch_opts.callbacks = credentials.callbacks()
            options.allow_fetch = 1
            guard git_submodule_update(submodule, 1, &options) == 0 else {
                throw .failed(operation: "updating submodule '\(name)'", detail: lastGitMessage())
            }
            var opened: OpaquePointer?
            guard git_submodule_open(&opened, submodule) == 0, let opened else {
                throw .failed(operation: "opening submodule '\(name)'", detail: lastGitMessage())
            }
            let child = GitRepository.adopt(opened)
            try updateSubmodules(of: child, credentials: credentials, workspace: workspace + "/" + name, depth: depth + 1)
        }
    }
}
