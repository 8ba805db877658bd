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

import Foundation

/// A push as a forge describes it: which repository (by every URL the forge gives for it), which
/// branch, and which commit the branch now points at.
public struct PushEvent: Sendable, Equatable {
    public var repositoryURLs: [String]
    public var branch: String
    /// Nil when the forge did not say (the bot then integrates the branch's head).
    public var commit: String?
    /// A push that deleted the branch: nothing to integrate.
    public var deleted: Bool
    /// False for tags and other refs, which bots do not follow.
    public var isBranch: Bool

    public init(repositoryURLs: [String], branch: String, commit: String?, deleted: Bool, isBranch: Bool = true) {
        self.repositoryURLs = repositoryURLs
        self.branch = branch
        self.commit = commit
        self.deleted = deleted
        self.isBranch = isBranch
    }
}

/// A pull request event as a forge describes it, reduced to the repository, the pull request and
/// what to do.
public struct PullRequestEvent: Sendable, Equatable {
    /// Every URL the payload gives for the base repository.
    public var repositoryURLs: [String]
    public var pullRequest: PullRequest
    /// The head commit.
    public var commit: String?
    /// Nil when the action asks nothing of Kiln (edited, labeled, approved…); `actionName` says which.
    public var action: PullRequestChange.Action?
    public var actionName: String
}

/// Why a delivery's payload cannot be read.
public enum PayloadError: Error, Equatable, CustomStringConvertible {
    case notJSON
    case missing(String)
    case invalid(String, String)
    case badFormEncoding

    public var description: String {
        switch self {
        case .notJSON: "the body is not a JSON object"
        case .missing(let field): "the payload has no '\(field)'"
        case .invalid(let field, let value): "'\(field)' is not a commit id: \(value.prefix(80))"
        case .badFormEncoding: "the form field 'payload' holds a malformed %-escape"
        }
    }
}

/// What the forges' payloads share.
public enum Payload {
    /// The JSON object of a delivery's body.
    public static func object(_ body: [UInt8]) throws(PayloadError) -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)), let json = object as? [String: Any] else { throw .notJSON }
        return json
    }

    /// A push as GitHub, GitLab and Gitea all describe it: `ref`, `after` (GitLab's
    /// `checkout_sha`), `deleted`, and the repository (GitLab's `project`).
    static func gitPush(_ json: [String: Any]) throws(PayloadError) -> PushEvent {
        guard let ref = json["ref"] as? String, !ref.isEmpty else { throw .missing("ref") }
        let after = (json["after"] as? String) ?? (json["checkout_sha"] as? String)
        if let after, !isCommit(after) { throw .invalid("after", after) }
        let urls = repositoryURLs(in: [json["repository"] as? [String: Any], json["project"] as? [String: Any]])
        guard !urls.isEmpty else { throw .missing("repository") }
        let deleted = (json["deleted"] as? Bool) == true || after == zeroCommit
        return PushEvent(
            repositoryURLs: urls, branch: branch(fromRef: ref), commit: deleted ? nil : after, deleted: deleted,
            isBranch: ref.hasPrefix("refs/heads/"))
    }

    static let zeroCommit = String(repeating: "0", count: 40)

    /// Every URL the forges give for a repository in these objects (`repository`, GitLab's
    /// `project`…), each once, in order.
    static func repositoryURLs(in containers: [[String: Any]?]) -> [String] {
        let keys = ["clone_url", "ssh_url", "git_url", "html_url", "git_http_url", "git_ssh_url", "http_url", "url", "web_url", "homepage"]
        var urls: [String] = []
        for container in containers.compactMap({ $0 }) {
            for url in keys.compactMap({ container[$0] as? String }) where !url.isEmpty && !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    static func branch(fromRef ref: String) -> String {
        ref.hasPrefix("refs/heads/") ? String(ref.dropFirst("refs/heads/".count)) : ref
    }

    public static func isCommit(_ text: String) -> Bool {
        (7...64).contains(text.utf8.count) && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
