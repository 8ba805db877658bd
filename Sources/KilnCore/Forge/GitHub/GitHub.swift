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

/// GitHub and GitHub Enterprise.
///
/// Deliveries: `X-GitHub-Event` (`push`, `pull_request`), signed as `X-Hub-Signature-256:
/// sha256=<hex HMAC-SHA256>`. Statuses: `POST {api}/repos/{owner}/{repo}/statuses/{sha}` with
/// `Authorization: Bearer <token>`. Pull requests' heads: `refs/pull/N/head`.
public struct GitHub: Forge {
    public var kind: ForgeKind { .github }

    public var eventHeaders: [String] { ["X-GitHub-Event"] }
    public var unnamedEvent: String { "" }

    public func delivery(_ event: String) -> ForgeDelivery {
        switch event {
        case "push", "": .push
        case "pull_request": .pullRequest
        default: .other
        }
    }

    public var signatureHeaders: [String] { ["X-Hub-Signature-256"] }
    public var signature: SignatureScheme { .hmacSHA256(prefix: "sha256=", prefixOptional: false) }

    public func push(_ payload: [String: Any]) throws(PayloadError) -> PushEvent {
        try Payload.gitPush(payload)
    }

    public func pullRequest(_ payload: [String: Any]) throws(PayloadError) -> PullRequestEvent {
        try Self.pullRequest(payload, forge: self)
    }

    public func recognises(host: String) -> Bool {
        host == "github.com" || host.hasSuffix(".github.com")
    }

    public func publicAPI(forHost host: String) -> String? {
        host == "github.com" ? "https://api.github.com" : nil
    }

    public func pullRef(_ number: Int) -> String {
        "refs/pull/\(number)/head"
    }

    public func filePage(commit: String, path: String) -> String? { "blob/\(commit)/\(path)" }
    public func commitPage(commit: String) -> String? { "commit/\(commit)" }

    public func statusRequest(_ status: CommitStatus, token: String) -> ForgeRequest? {
        ForgeRequest(
            url: "\(status.api)/repos/\(status.project)/statuses/\(status.sha)",
            headers: ["Authorization: Bearer \(token)", "Accept: application/vnd.github+json"], json: status.githubFields)
    }

    public func memberRequest(api: String, project: String, login: String, token: String) -> ForgeRequest? {
        ForgeRequest(
            get: "\(api)/repos/\(project)/collaborators/\(ForgeRequest.segment(login))",
            headers: ["Authorization: Bearer \(token)", "Accept: application/vnd.github+json"])
    }

    public func isMember(_ login: String, code: Int, body: [UInt8]) -> Bool? { Self.collaborator(code: code) }

    /// A `pull_request` event: `action`, `number`, `pull_request {title, user, html_url, head,
    /// base}`, `repository`. Gitea and Forgejo send the same shape.
    static func pullRequest(_ json: [String: Any], forge: some Forge) throws(PayloadError) -> PullRequestEvent {
        guard let action = json["action"] as? String else { throw .missing("action") }
        guard let pull = json["pull_request"] as? [String: Any] else { throw .missing("pull_request") }
        guard let number = (json["number"] as? Int) ?? (pull["number"] as? Int) else { throw .missing("number") }
        guard let head = pull["head"] as? [String: Any] else { throw .missing("pull_request.head") }
        guard let base = pull["base"] as? [String: Any], let baseRef = base["ref"] as? String else { throw .missing("pull_request.base.ref") }
        let sha = head["sha"] as? String
        if let sha, !Payload.isCommit(sha) { throw .invalid("pull_request.head.sha", sha) }
        let user = pull["user"] as? [String: Any]
        let headRepository = head["repo"] as? [String: Any]
        let baseRepository = (base["repo"] as? [String: Any]) ?? (json["repository"] as? [String: Any])
        // A fork's head lives in another repository; a deleted fork's head repository is null.
        let fork = headRepository == nil || repositoryName(headRepository) != repositoryName(baseRepository)
        let urls = Payload.repositoryURLs(in: [json["repository"] as? [String: Any], base["repo"] as? [String: Any]])
        guard !urls.isEmpty else { throw .missing("repository") }
        let pullRequest = PullRequest(
            number: number, title: (pull["title"] as? String) ?? "", author: (user?["login"] as? String) ?? (user?["username"] as? String) ?? "",
            url: pull["html_url"] as? String,
            head: fork ? ((head["label"] as? String) ?? (head["ref"] as? String) ?? "") : ((head["ref"] as? String) ?? ""),
            base: baseRef, ref: forge.pullRef(number), fork: fork)
        let decided: PullRequestChange.Action? =
            switch action {
            case "opened", "reopened", "synchronize", "synchronized": .integrate
            case "closed": .close
            default: nil
            }
        return PullRequestEvent(repositoryURLs: urls, pullRequest: pullRequest, commit: sha, action: decided, actionName: action)
    }

    private static func repositoryName(_ repository: [String: Any]?) -> String? {
        guard let repository else { return nil }
        if let name = repository["full_name"] as? String { return name.lowercased() }
        if let id = repository["id"] as? Int { return String(id) }
        return nil
    }
}

extension ForgeKind {
    public static let github = ForgeKind(rawValue: "github")
}
