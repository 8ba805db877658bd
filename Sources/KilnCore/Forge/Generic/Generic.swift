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

/// Kiln's own webhook, for any git host or script: `POST /hooks/generic` with
/// `{"repository": URL, "branch": name, "commit": sha}`, signed as `X-Kiln-Signature:
/// sha256=<hex HMAC-SHA256>`. Every delivery is a push; it has no pull requests and takes no
/// commit statuses.
public struct Generic: Forge {
    public var kind: ForgeKind { .generic }

    public var eventHeaders: [String] { [] }
    public var unnamedEvent: String { "push" }

    public func delivery(_ event: String) -> ForgeDelivery { .push }

    public var signatureHeaders: [String] { ["X-Kiln-Signature"] }
    public var signature: SignatureScheme { .hmacSHA256(prefix: "sha256=", prefixOptional: false) }

    public func push(_ json: [String: Any]) throws(PayloadError) -> PushEvent {
        guard let repository = json["repository"] as? String, !repository.isEmpty else { throw .missing("repository") }
        guard let branch = json["branch"] as? String, !branch.isEmpty else { throw .missing("branch") }
        let commit = json["commit"] as? String
        if let commit, !Payload.isCommit(commit) { throw .invalid("commit", commit) }
        return PushEvent(repositoryURLs: [repository], branch: Payload.branch(fromRef: branch), commit: commit, deleted: false)
    }

    public func pullRequest(_ payload: [String: Any]) throws(PayloadError) -> PullRequestEvent {
        throw .missing("pull_request")
    }

    public func recognises(host: String) -> Bool { false }
    public func publicAPI(forHost host: String) -> String? { nil }
    public func pullRef(_ number: Int) -> String { "refs/pull/\(number)/head" }

    public func filePage(commit: String, path: String) -> String? { nil }
    public func commitPage(commit: String) -> String? { nil }
    public var takesStatuses: Bool { false }
    public func statusRequest(_ status: CommitStatus, token: String) -> ForgeRequest? { nil }
}

extension ForgeKind {
    public static let generic = ForgeKind(rawValue: "generic")
}
