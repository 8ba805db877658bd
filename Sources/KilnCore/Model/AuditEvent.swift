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

/// One entry of the audit trail (`kiln audit`, `GET /audit`): who did what that touches access
/// or the queue, from where and when. Kept for `audit.retention`.
public struct AuditEvent: Sendable, Hashable, Codable {
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
        /// A token signed in at `/login`.
        case signIn = "sign-in"
        /// A token that is not valid was offered: at `/login`, as a bearer token, or in a cookie.
        case signInFailed = "sign-in-failed"
        /// An address failed too often and is refused for a while (`SignInThrottle`).
        case throttled
        case tokenAdded = "token-added"
        case tokenRevoked = "token-revoked"
        /// An integration queued from the web or the API.
        case queued
        /// An integration canceled from the web or the API.
        case canceled
        /// A fork's pull request waiting for a member's approval, approved (`kiln approve`, the
        /// page, the API).
        case approved
    }

    public var at: Date
    public var action: Action
    /// The token's name: the one that acted, or the one made or revoked; nil for a failed sign-in.
    public var token: String?
    /// Where the request came from; nil: this machine's command line.
    public var address: String?
    public var bot: String?
    public var number: Int?
    /// What else is worth knowing ("bearer token", "role admin, bots all", "by root").
    public var detail: String?

    public init(
        at: Date, action: Action, token: String? = nil, address: String? = nil, bot: String? = nil, number: Int? = nil,
        detail: String? = nil
    ) {
        self.at = at
        self.action = action
        self.token = token
        self.address = address
        self.bot = bot
        self.number = number
        self.detail = detail
    }
}
