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

/// GitLab, public and self-hosted.
///
/// Deliveries: `X-Gitlab-Event` (`Push Hook`, `Merge Request Hook`), authenticated by the secret
/// itself in `X-Gitlab-Token`. Statuses: `POST {api}/projects/{url-encoded path}/statuses/{sha}`
/// with `PRIVATE-TOKEN: <token>`, states `pending`, `running`, `success`, `failed`. Merge
/// requests' heads: `refs/merge-requests/N/head`.
public struct GitLab: Forge {
    public var kind: ForgeKind { .gitlab }

    public var eventHeaders: [String] { ["X-Gitlab-Event"] }
    public var unnamedEvent: String { "" }

    public func delivery(_ event: String) -> ForgeDelivery {
        switch event {
        case "Push Hook", "": .push
        case "Merge Request Hook": .pullRequest
        default: .other
        }
    }

    public var signatureHeaders: [String] { ["X-Gitlab-Token"] }
    public var signature: SignatureScheme { .token }

    public func push(_ payload: [String: Any]) throws(PayloadError) -> PushEvent {
        try Payload.gitPush(payload)
    }

    /// `object_attributes {iid, title, url, source_branch, target_branch, action, oldrev,
    /// last_commit}`, `user`, `project`.
    public func pullRequest(_ json: [String: Any]) throws(PayloadError) -> PullRequestEvent {
        guard let attributes = json["object_attributes"] as? [String: Any] else { throw .missing("object_attributes") }
        guard let number = attributes["iid"] as? Int else { throw .missing("object_attributes.iid") }
        guard let target = attributes["target_branch"] as? String else { throw .missing("object_attributes.target_branch") }
        let sha = (attributes["last_commit"] as? [String: Any])?["id"] as? String
        if let sha, !Payload.isCommit(sha) { throw .invalid("object_attributes.last_commit.id", sha) }
        let action = (attributes["action"] as? String) ?? ""
        let user = json["user"] as? [String: Any]
        let source = attributes["source_branch"] as? String ?? ""
        let fork = (attributes["source_project_id"] as? Int) != (attributes["target_project_id"] as? Int)
        let urls = Payload.repositoryURLs(in: [
            json["project"] as? [String: Any], json["repository"] as? [String: Any], attributes["target"] as? [String: Any],
        ])
        guard !urls.isEmpty else { throw .missing("project") }
        let sourceNamespace = ((attributes["source"] as? [String: Any])?["path_with_namespace"] as? String)
        let pullRequest = PullRequest(
            number: number, title: (attributes["title"] as? String) ?? "",
            author: (user?["username"] as? String) ?? (user?["name"] as? String) ?? "", url: attributes["url"] as? String,
            head: fork ? "\(sourceNamespace ?? "fork"):\(source)" : source, base: target, ref: pullRef(number), fork: fork)
        let decided: PullRequestChange.Action? =
            switch action {
            case "open", "reopen": .integrate
            // An update without `oldrev` changed the description or labels, not the commits.
            case "update": attributes["oldrev"] is String ? .integrate : nil
            case "close", "merge": .close
            default: nil
            }
        return PullRequestEvent(repositoryURLs: urls, pullRequest: pullRequest, commit: sha, action: decided, actionName: action)
    }

    public func recognises(host: String) -> Bool {
        host == "gitlab.com" || host.hasPrefix("gitlab.")
    }

    public func publicAPI(forHost host: String) -> String? {
        host == "gitlab.com" ? "https://gitlab.com/api/v4" : nil
    }

    public func pullRef(_ number: Int) -> String {
        "refs/merge-requests/\(number)/head"
    }

    public func filePage(commit: String, path: String) -> String? { "-/blob/\(commit)/\(path)" }
    public func commitPage(commit: String) -> String? { "-/commit/\(commit)" }

    public func statusRequest(_ status: CommitStatus, token: String) -> ForgeRequest? {
        let project =
            status.project.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? status.project
        let state =
            switch status.state {
            case .pending: "pending"
            case .running: "running"
            case .success: "success"
            case .failure, .error: "failed"
            }
        var fields = ["state": state, "name": status.context, "description": status.description]
        if let target = status.targetURL { fields["target_url"] = target }
        return ForgeRequest(url: "\(status.api)/projects/\(project)/statuses/\(status.sha)", headers: ["PRIVATE-TOKEN: \(token)"], json: fields)
    }

    /// `GET /projects/{id}/members/all?query={login}`: the project's members, inherited ones too.
    public func memberRequest(api: String, project: String, login: String, token: String) -> ForgeRequest? {
        ForgeRequest(
            get: "\(api)/projects/\(ForgeRequest.segment(project))/members/all?query=\(ForgeRequest.segment(login))",
            headers: ["PRIVATE-TOKEN: \(token)"])
    }

    /// A member with Developer access or more (`access_level` 30 and up) may push: one whose
    /// merge requests need no approval.
    public func isMember(_ login: String, code: Int, body: [UInt8]) -> Bool? {
        guard code == 200, let members = try? JSONSerialization.jsonObject(with: Data(body)) as? [[String: Any]] else { return nil }
        return members.contains {
            ($0["username"] as? String)?.lowercased() == login.lowercased() && ($0["access_level"] as? Int ?? 0) >= Self.developerAccess
        }
    }

    static let developerAccess = 30

    /// GitLab refuses a status its commit already has ("Cannot transition status via :run from
    /// :running"): it shows what it was told, which is delivered enough.
    public func hasStatus(despite code: Int, message: String) -> Bool {
        code == 400 && message.contains("Cannot transition status")
    }
}

extension ForgeKind {
    public static let gitlab = ForgeKind(rawValue: "gitlab")
}
