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

/// The process's libgit2: initialised once, before the first use, and never shut down.
public enum GitLibrary {
    private static let initialized: Bool = {
        git_libgit2_init()
        // Mirrors and workspaces live in Kiln's data directory; one restored from a backup by
        // another user must still open.
        kiln_git_set_owner_validation(0)
        return true
    }()

    /// Why libgit2 cannot be opened (with the package to install), or nil when it can. libgit2
    /// is opened on first use, not when Kiln starts.
    public static var loadError: String? {
        kiln_git_error().map { "cannot open libgit2 (\(String(cString: $0))): install it with `apt-get install libgit2-1.5`" }
    }

    /// Makes sure libgit2 is initialised; cheap after the first call and safe from any thread.
    public static func initialize() {
        _ = initialized
    }

    /// The linked libgit2's version, such as `1.5.1`.
    public static var version: String {
        initialize()
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        git_libgit2_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}

/// Runs blocking libgit2 work on a thread of its own, never on Swift's cooperative pool.
///
/// libgit2 handles are created, used and freed inside `body`, so none crosses threads;
/// `git_error_last()` is read inside `body` too, right after the failing call.
func onGitThread<T: Sendable>(_ body: @escaping @Sendable () throws(GitError) -> T) async throws(GitError) -> T {
    let result: Result<T, GitError> = await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            GitLibrary.initialize()
            continuation.resume(returning: Result { () throws(GitError) -> T in try body() })
        }
    }
    return try result.get()
}

/// The last libgit2 error's message on this thread, with credentials scrubbed from any URL in it.
func lastGitMessage() -> String {
    guard let error = git_error_last(), let message = error.pointee.message else { return "unknown libgit2 error" }
    return scrubCredentials(String(cString: message))
}

/// Removes `user:password@` from every URL in `text`.
func scrubCredentials(_ text: String) -> String {
    text.replacingOccurrences(of: #"(://)[^/@\s]+@"#, with: "$1", options: .regularExpression)
}

/// Turns a libgit2 failure talking to `url` into the error an operator should see.
func classify(code: Int32, message: String, operation: String, url: RepositoryURL) -> GitError {
    let redacted = url.redacted
    let lowered = message.lowercased()
    if code == GIT_EAUTH.rawValue || lowered.contains("401") || lowered.contains("authentication") || lowered.contains("credentials") {
        return .authenticationFailed(url: redacted)
    }
    if lowered.contains("unsupported url protocol") && url.scheme == .file || lowered.contains("404")
        || lowered.contains("not found") && (lowered.contains("repository") || lowered.contains("path"))
        || lowered.contains("does not appear to be a git repository")
        || lowered.contains("could not find repository") || lowered.contains("repository not exported")
    {
        return .repositoryNotFound(url: redacted)
    }
    if lowered.contains("failed to resolve address") || lowered.contains("could not connect") || lowered.contains("connection refused")
        || lowered.contains("timed out") || lowered.contains("network is unreachable") || lowered.contains("no route to host")
    {
        return .hostUnreachable(url: redacted, detail: message)
    }
    return .failed(operation: "\(operation) \(redacted)", detail: message)
}

/// Creates a remote named `name` in `repository`, persisted in its config, without the
/// url.<base>.insteadOf lookup: Debian's libgit2 1.5 leaks pcre2 match data in that lookup
/// (~250 KB for every named remote created), and Kiln never relies on insteadOf rewriting.
func createRemote(
    _ out: UnsafeMutablePointer<OpaquePointer?>?, in repository: OpaquePointer?, named name: UnsafePointer<CChar>?,
    url: UnsafePointer<CChar>?, fetchspec: UnsafePointer<CChar>? = nil
) -> Int32 {
    var options = git_remote_create_options()
    git_remote_create_options_init(&options, UInt32(GIT_REMOTE_CREATE_OPTIONS_VERSION))
    options.repository = repository
    options.name = name
    options.fetchspec = fetchspec
    options.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF.rawValue
    return git_remote_create_with_opts(out, url, &options)
}

/// A libgit2 object id as 40 hex digits.
func hex(_ oid: UnsafePointer<git_oid>) -> String {
    var buffer = [CChar](repeating: 0, count: Int(GIT_OID_HEXSZ))
    git_oid_fmt(&buffer, oid)
    return String(decoding: buffer.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Parses 40 hex digits into an object id.
func oid(_ text: String) -> git_oid? {
    var id = git_oid()
    guard text.utf8.count == Int(GIT_OID_HEXSZ), git_oid_fromstr(&id, text) == 0 else { return nil }
    return id
}
