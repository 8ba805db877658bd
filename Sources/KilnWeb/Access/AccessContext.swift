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

import Hummingbird
import KilnCore
import NIOCore

/// The request context of every route: Hummingbird's, who is asking, and from where.
public struct KilnRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who is asking; anonymous until `AccessMiddleware` has looked.
    public var access = Access.anonymous(.none)
    /// The hash of the token that signed in through the session cookie, for forms'
    /// anti-forgery values; nil for a bearer token or none.
    public var sessionTokenHash: String?
    /// For a page asked without a token: whether any token exists, so that the page offers
    /// "Sign in" (`PageChrome`).
    var signInOffered = false
    /// The connection's peer, as the socket says.
    let peer: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress
    }

    /// Where `request` comes from, as the audit trail and the sign-in throttle know it: the
    /// peer's address; or, when the peer is this machine (a reverse proxy in front of Kiln) and
    /// says whom it forwards, the last address of its `X-Forwarded-For` (the one it added).
    func clientAddress(_ request: Request) -> String {
        let address = peer?.ipAddress ?? "unknown"
        guard Self.isLoopback(address), let forwarded = request.headers[.forwardedFor],
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        else { return address }
        return last
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }
}
