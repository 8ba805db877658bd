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

/// Gitea and Forgejo (Codeberg), which share Gitea's API and GitHub's payloads.
///
/// Deliveries: `X-Gitea-Event` or `X-Forgejo-Event` (`push`, `pull_request`,
/// `pull_request_sync`), signed as `X-Gitea-Signature` or `X-Forgejo-Signature: <hex
/// HMAC-SHA256>`. Statuses: `POST {api}/repos/{owner}/{repo}/statuses/{sha}` with `Authorization:
/// token <token>`. Pull requests' heads: `refs/pull/N/head`.
public struct Gitea: Forge {
    public var kind: ForgeKind { .gitea }

    public var eventHeaders: [String] { ["X-Gitea-Event", "X-Forgejo-Event"] }
    public var unnamedEvent: String { "" }

    public func delivery(_ event: String) -> ForgeDelivery {
        switch event {
        case "push", "": .push
        case "pull_request", "pull_request_sync": .pullRequest
        default: .other
        }
    }

    public var signatureHeaders: [String] { ["X-Gitea-Signature", "X-Forgejo-Signature"] }
    public var signature: SignatureScheme { .hmacSHA256(prefix: "sha256=", prefixOptional: true) }

    public func push(_ payload: [String: Any]) throws(PayloadError) -> PushEvent {
        try Payload.gitPush(payload)
    }

    public func pullRequest(_ payload: [String: Any]) throws(PayloadError) -> PullRequestEvent {
        try GitHub.pullRequest(payload, forge: self)
    }

    public func recognises(host: String) -> Bool {
        host == "codeberg.org" || host.hasPrefix("gitea.") || host.hasPrefix("forgejo.")
    }

    public func publicAPI(forHost host: String) -> String? {
        host == "codeberg.org" ? "https://codeberg.org/api/v1" : nil
    }

    public func pullRef(_ number: Int) -> String {
        "refs/pull/\(number)/head"
    }

    public func filePage(commit: String, path: String) -> String? { "src/commit/\(commit)/\(path)" }
    public func commitPage(commit: String) -> String? { "commit/\(commit)" }

    public func statusRequest(_ status: CommitStatus, token: String) -> ForgeRequest? {
        ForgeRequest(
            url: "\(status.api)/repos/\(status.project)/statuses/\(status.sha)", headers: ["Authorization: token \(token)"], json: status.githubFields
        )
    }

    public func memberRequest(api: String, project: String, login: String, token: String) -> ForgeRequest? {
        ForgeRequest(get: "\(api)/repos/\(project)/collaborators/\(ForgeRequest.segment(login))", headers: ["Authorization: token \(token)"])
    }

    public func isMember(_ login: String, code: Int, body: [UInt8]) -> Bool? { Self.collaborator(code: code) }
}

extension ForgeKind {
    public static let gitea = ForgeKind(rawValue: "gitea")
}
