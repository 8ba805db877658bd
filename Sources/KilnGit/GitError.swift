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

import KilnCore

/// Why a git operation failed, in words an operator can act on.
///
/// Every URL in an error is redacted: credentials never reach logs, the database or pages.
public enum GitError: Error, Sendable, Equatable, CustomStringConvertible {
    case repositoryNotFound(url: String)
    case authenticationFailed(url: String)
    case branchNotFound(branch: String, url: String)
    case commitNotFound(commit: String, url: String)
    /// A pull request's ref the forge does not have (closed long ago, or never opened).
    case refNotFound(ref: String, url: String)
    case hostUnreachable(url: String, detail: String)
    case corruptMirror(path: String, detail: String)
    /// This host has no mirror of the repository yet: it has not integrated it.
    case mirrorMissing(url: String)
    /// Anything else libgit2 reported, with what Kiln was doing.
    case failed(operation: String, detail: String)

    public var description: String {
        switch self {
        case .repositoryNotFound(let url): "repository not found: \(url) (check the bot's repository url)"
        case .authenticationFailed(let url):
            "authentication failed for \(url) (check the credentials in the URL or the server's git.ssh-key-file)"
        case .branchNotFound(let branch, let url): "branch '\(branch)' not found in \(url) (check the bot's repository branch)"
        case .commitNotFound(let commit, let url): "commit \(commit) not found in \(url)"
        case .refNotFound(let ref, let url): "\(ref) not found in \(url) (check the pull request's number, and that it is open)"
        case .hostUnreachable(let url, let detail): "cannot reach the host of \(url): \(detail)"
        case .corruptMirror(let path, let detail): "the mirror \(path) is damaged: \(detail)"
        case .mirrorMissing(let url): "this host has no mirror of \(url) yet (it has not integrated the bot)"
        case .failed(let operation, let detail): "\(operation): \(detail)"
        }
    }
}
