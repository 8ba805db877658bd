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

/// `visibility` of a bot: who may see it at all.
public enum Visibility: String, CaseIterable, Sendable, Hashable {
    /// Everyone who may read the server (the default).
    case `public`
    /// Only requests with a token that may see it; to anyone else it does not exist.
    case `private`
}

/// What a token's holder may do: each role may do what the one before may.
public enum AccessRole: String, CaseIterable, Sendable, Hashable, Comparable {
    /// Reads what the token may see.
    case viewer
    /// Also queues and cancels integrations of the bots it may see.
    case member
    /// Also manages tokens.
    case admin

    public static func < (lhs: AccessRole, rhs: AccessRole) -> Bool {
        allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
    }
}

/// `access.anonymous` in kiln.yml: what a request without a token may do.
public enum AnonymousAccess: String, CaseIterable, Sendable, Hashable {
    /// Read every public bot (the default).
    case read
    /// Nothing: only `/health`, the sign-in page and the webhooks answer without a token.
    case none
}

/// An access token as the store keeps it: never the token itself, only its hash (`kiln token`).
public struct AccessToken: Sendable, Hashable {
    public var name: String
    public var role: AccessRole
    /// The private bots it may see (and, for a member, act on); empty: every bot.
    public var bots: [String]
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(name: String, role: AccessRole, bots: [String] = [], createdAt: Date, lastUsedAt: Date? = nil) {
        self.name = name
        self.role = role
        self.bots = bots
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// Whether `name` may name a token: letters, digits, `-`, `_` and `.`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
    }
}

/// Who is asking, and so what a request may see and do: the one rule every route applies.
///
/// A public bot is seen by anyone who may read the server (the anonymous, unless
/// `access.anonymous: none`, and every token); a private bot only by a token that names it or
/// names no bot. Acting (queueing, canceling) takes a member's or an admin's token that may see
/// the bot.
public struct Access: Sendable, Hashable {
    /// The token's name; nil for a request without one.
    public var tokenName: String?
    public var role: AccessRole?
    /// The private bots the token may see; nil: every bot.
    public var bots: Set<String>?
    /// Whether a request without a token may read public bots.
    public var anonymousRead: Bool

    public static func anonymous(_ settings: AnonymousAccess) -> Access {
        Access(tokenName: nil, role: nil, bots: nil, anonymousRead: settings == .read)
    }

    public static func token(_ token: AccessToken) -> Access {
        Access(tokenName: token.name, role: token.role, bots: token.bots.isEmpty ? nil : Set(token.bots), anonymousRead: false)
    }

    /// Whether the request may read anything beyond the open routes.
    public var mayRead: Bool { role != nil || anonymousRead }

    /// Whether the request may see `bot`, private or not.
    public func maySee(_ bot: String, isPrivate: Bool) -> Bool {
        guard role != nil else { return anonymousRead && !isPrivate }
        return !isPrivate || bots.map { $0.contains(bot) } ?? true
    }

    /// Whether the request may queue and cancel integrations of `bot`.
    public func mayAct(on bot: String, isPrivate: Bool) -> Bool {
        guard let role, role >= .member else { return false }
        return maySee(bot, isPrivate: isPrivate) && bots.map { $0.contains(bot) } ?? true
    }

    /// The scope of everyone without a token on a server they may read.
    public static let publicScope = "public"

    /// What every request that sees the same bots shares (a cache's key): `public`, `all`, or
    /// the private bots it may see.
    public var scope: String {
        guard role != nil else { return anonymousRead ? Self.publicScope : "nothing" }
        return bots.map { "bots:" + $0.sorted().joined(separator: ",") } ?? "all"
    }
}
