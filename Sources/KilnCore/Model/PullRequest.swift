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

/// A pull request (GitHub, Gitea, Forgejo) or merge request (GitLab), as an integration of it
/// remembers it: the forge's words at the time it was queued.
public struct PullRequest: Sendable, Hashable {
    public var number: Int
    /// User text: escaped wherever it is shown.
    public var title: String
    /// The forge's user name of whoever opened it.
    public var author: String
    /// Its page on the forge; nil when unknown (`kiln run --pull N` without a webhook having told).
    public var url: String?
    /// The branch it proposes, as the forge names it (`feature`, or `owner:feature` from a fork).
    public var head: String
    /// The branch it would merge into: the bot's branch.
    public var base: String
    /// The ref under which the forge keeps its head in the base repository (`Forge.pullRef`).
    public var ref: String
    /// Its head lives in another repository: its integrations get none of the bot's secrets.
    public var fork: Bool

    public init(number: Int, title: String, author: String, url: String?, head: String, base: String, ref: String, fork: Bool) {
        self.number = number
        self.title = title
        self.author = author
        self.url = url
        self.head = head
        self.base = base
        self.ref = ref
        self.fork = fork
    }
}

/// Which pull requests a bot integrates (`pull-requests:` in a bot file).
public struct PullRequestPolicy: Sendable, Hashable {
    public var enabled: Bool
    /// Pull requests whose head is in another repository; they never get the bot's secrets.
    public var forks: Bool
    /// `forks: approve`: a fork's pull request from an author who is not trusted waits, at the
    /// step `awaiting-approval`, until a member approves its commit.
    public var approval: Bool
    /// `trusted:`: forge logins whose pull requests from forks run without approval (besides the
    /// repository's members, as the forge says).
    public var trusted: [String]

    public init(enabled: Bool = false, forks: Bool = false, approval: Bool = false, trusted: [String] = []) {
        self.enabled = enabled
        self.forks = forks || approval
        self.approval = approval
        self.trusted = trusted
    }

    /// Whether a pull request is integrated at all.
    public func accepts(_ pullRequest: PullRequest) -> Bool {
        enabled && (forks || !pullRequest.fork)
    }

    /// Whether a forge's event for `pullRequest` queues it to wait for a member's approval: a
    /// fork's, under `forks: approve`, from an author not listed in `trusted` (a forge login
    /// compares without case). Whether the forge counts the author a member is asked later
    /// (`ForgeSettings`' membership check), and a commit approved before runs at once.
    public func awaitsApproval(_ pullRequest: PullRequest) -> Bool {
        approval && pullRequest.fork && !trusted.contains { $0.lowercased() == pullRequest.author.lowercased() }
    }
}

/// Where a bot's commit statuses go (`forge:` in a bot file).
public struct ForgeSettings: Sendable, Hashable {
    public enum WarningsState: String, CaseIterable, Sendable, Hashable {
        case success, failure
    }

    public var kind: ForgeKind
    /// The API's root, such as `https://api.github.com` or `https://gitlab.example.com/api/v4`.
    public var apiURL: String
    /// The file holding the API token, read at each delivery so that a new token takes effect at once.
    public var tokenFile: String
    /// How a result of `warnings` is reported.
    public var warnings: WarningsState
    /// Whether a pull request's new issues become review comments on the lines it changed.
    public var review: Bool
    /// At most this many line comments per push; the rest go in the summary comment.
    public var reviewLimit: Int

    public init(kind: ForgeKind, apiURL: String, tokenFile: String, warnings: WarningsState = .success, review: Bool = false, reviewLimit: Int = 25) {
        self.kind = kind
        self.apiURL = apiURL
        self.tokenFile = tokenFile
        self.warnings = warnings
        self.review = review
        self.reviewLimit = reviewLimit
    }

    /// How the forge's API names `url`'s repository: `owner/name` for GitHub and Gitea, the
    /// project's full path for GitLab (URL-encoded where it is sent). A local path, as tests and
    /// mirrors of forge repositories use, stands for its last two components.
    public static func project(of url: RepositoryURL) -> String {
        var components = url.path.split(separator: "/").map(String.init)
        if var last = components.last, last.hasSuffix(".git") {
            last.removeLast(4)
            components[components.count - 1] = last
        }
        if url.host == nil || url.scheme == .file { components = Array(components.suffix(2)) }
        return components.joined(separator: "/")
    }
}
