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

/// What Kiln knows of one kind of forge, in one place: how its webhook deliveries are named,
/// signed and read, how its repositories are recognised, where it keeps pull requests' heads, and
/// how a commit status is posted to it. One folder per forge beside this file; `Forges.all` lists
/// them, so a new forge is a folder and a line there.
public protocol Forge: Sendable {
    var kind: ForgeKind { get }

    // MARK: Deliveries (`POST /hooks/{kind}`)

    /// The headers that name a delivery's event, the first found winning.
    var eventHeaders: [String] { get }
    /// The event a delivery without an event header is taken for (its payload then decides).
    var unnamedEvent: String { get }
    /// What a delivery of `event` asks of Kiln.
    func delivery(_ event: String) -> ForgeDelivery
    /// The headers that may carry a delivery's signature, and how it is made.
    var signatureHeaders: [String] { get }
    var signature: SignatureScheme { get }
    /// Reads a push.
    func push(_ payload: [String: Any]) throws(PayloadError) -> PushEvent
    /// Reads a pull (or merge) request event.
    func pullRequest(_ payload: [String: Any]) throws(PayloadError) -> PullRequestEvent

    // MARK: Repositories

    /// Whether a repository on `host` is on this forge, when the bot file does not say.
    func recognises(host: String) -> Bool
    /// The API a public host serves; nil for a self-hosted forge, which must name its own.
    func publicAPI(forHost host: String) -> String?
    /// The ref under which the forge keeps pull request `number`'s head in the base repository.
    func pullRef(_ number: Int) -> String
    /// Where the forge's web pages show `path` (segments already percent-encoded) as of `commit`,
    /// relative to the repository's page (`https://host/owner/name`); nil for a forge without
    /// such pages.
    func filePage(commit: String, path: String) -> String?
    /// Where the forge's web pages show `commit` and its diff, relative to the repository's
    /// page; nil for a forge without such pages.
    func commitPage(commit: String) -> String?

    // MARK: Commit statuses

    /// Whether the forge takes commit statuses (a bot's `forge.kind` may name it).
    var takesStatuses: Bool { get }
    /// The request that posts `status` with `token`; nil for a forge that takes no statuses.
    func statusRequest(_ status: CommitStatus, token: String) -> ForgeRequest?
    /// Whether an answer of 4xx `code` saying `message` means the forge has the status anyway.
    func hasStatus(despite code: Int, message: String) -> Bool

    // MARK: Members

    /// The request that asks whether `login` is a member of `project` (`ForgeSettings.project`)
    /// whose pull requests from forks need no approval; nil for a forge that cannot say.
    func memberRequest(api: String, project: String, login: String, token: String) -> ForgeRequest?
    /// What the forge's answer to `memberRequest` says: true a member, false not, nil that it
    /// could not say now (asked again later).
    func isMember(_ login: String, code: Int, body: [UInt8]) -> Bool?
}

extension Forge {
    public var takesStatuses: Bool { true }

    public func hasStatus(despite code: Int, message: String) -> Bool { false }

    public func memberRequest(api: String, project: String, login: String, token: String) -> ForgeRequest? { nil }
    public func isMember(_ login: String, code: Int, body: [UInt8]) -> Bool? { nil }

    /// GitHub's and Gitea's answer to `GET /repos/{owner}/{repo}/collaborators/{login}`: 204 a
    /// collaborator, 404 not.
    static func collaborator(code: Int) -> Bool? {
        switch code {
        case 204: true
        case 404: false
        default: nil
        }
    }
}

/// Every forge Kiln knows.
public enum Forges {
    public static let all: [any Forge] = [GitHub(), GitLab(), Gitea(), Generic()]

    /// The forge of `kind`.
    public static func forge(_ kind: ForgeKind) -> any Forge {
        all.first { $0.kind == kind } ?? GitHub()
    }

    /// The forge a repository host implies, when the bot file does not say.
    public static func implied(byHost host: String?) -> (any Forge)? {
        guard let host else { return nil }
        return all.first { $0.recognises(host: host) }
    }

    /// The kinds a bot's `forge.kind` may name: those that take commit statuses.
    public static var statusKinds: [ForgeKind] { all.filter(\.takesStatuses).map(\.kind) }
}

/// A forge's name: `github`, `gitlab`, `gitea` (and Forgejo), `generic` (Kiln's own webhook).
/// Each forge's folder declares its own (`ForgeKind.github`).
public struct ForgeKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The known kind named `name`; nil for a name no forge has.
    public init?(known name: String) {
        guard Forges.all.contains(where: { $0.kind.rawValue == name }) else { return nil }
        self.init(rawValue: name)
    }

    public var forge: any Forge { Forges.forge(self) }
    public var description: String { rawValue }

    /// The ref under which the forge keeps pull request `number`'s head.
    public func pullRef(_ number: Int) -> String { forge.pullRef(number) }
}

/// What a delivery asks of Kiln.
public enum ForgeDelivery: Sendable, Equatable {
    case push
    case pullRequest
    /// Anything else (a ping, an issue comment): answered and recorded, nothing queued.
    case other
}

/// How a forge signs deliveries with the webhook's secret.
public enum SignatureScheme: Sendable, Equatable {
    /// The body's HMAC-SHA256 with the secret, in hex, after `prefix` (which may be left out
    /// when `prefixOptional`).
    case hmacSHA256(prefix: String, prefixOptional: Bool)
    /// The secret itself, sent as a token.
    case token
}

/// An HTTP request to a forge's API, as it goes out.
public struct ForgeRequest: Sendable, Equatable {
    public var method = "POST"
    public var url: String
    /// `Name: value` lines.
    public var headers: [String]
    public var body: [UInt8]

    /// A GET with `headers` besides `Accept` and `User-Agent`.
    init(get url: String, headers: [String]) {
        method = "GET"
        self.url = url
        self.headers = ["Accept: application/json", "User-Agent: kiln"] + headers
        body = []
    }

    /// `text` as one segment of a URL's path.
    static func segment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// A JSON POST with `headers` besides the content type, `Accept` and `User-Agent`.
    init(url: String, headers: [String], json: [String: String]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        self.url = url
        self.headers = ["Content-Type: application/json", "Accept: application/json", "User-Agent: kiln"] + headers
        body = Array((try? encoder.encode(json)) ?? Data())
    }
}

extension CommitStatus {
    /// The API's root without a trailing slash.
    var api: String { apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL }

    /// The fields GitHub and Gitea take: `state` (a running integration is `pending`), `context`,
    /// `description`, `target_url`.
    var githubFields: [String: String] {
        var fields = ["state": state == .running ? "pending" : state.rawValue, "context": context, "description": description]
        if let targetURL { fields["target_url"] = targetURL }
        return fields
    }
}
