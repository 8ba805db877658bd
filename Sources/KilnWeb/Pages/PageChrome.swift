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

/// What every page's header says of the reader, written into the page as it is answered (the
/// page itself may come from the cache, shared by everyone who may see the same): "Sign in"
/// for a reader without a token where tokens exist, "Signed in as NAME" and "Sign out" for a
/// signed-in session, nothing for a script's bearer token.
enum PageChrome {
    /// Where the header template (`Web/header.mustache`) leaves room for it.
    static let marker = Array("<!--account-->".utf8)
    /// The marker is in the header, within the page's first bytes.
    static let searched = 2048

    /// `body` as a page for `context`'s reader.
    static func page(_ body: ByteBuffer, for context: KilnRequestContext) -> Response {
        PagesController.html(spliced(body, account(context)))
    }

    static func account(_ context: KilnRequestContext) -> String {
        if context.sessionTokenHash != nil, let name = context.access.tokenName {
            var escaped = ""
            LogHTML.escape(name, into: &escaped)
            return #"<form class="account" method="post" action="/logout"><span>Signed in as \#(escaped)</span> <button>Sign out</button></form>"#
        }
        if context.access.role == nil, context.signInOffered { return #"<a class="account" href="/login">Sign in</a>"# }
        return ""
    }

    /// `body` with `account` in place of the marker; as it was when there is none.
    static func spliced(_ body: ByteBuffer, _ account: String) -> ByteBuffer {
        guard !account.isEmpty else { return body }
        let view = body.readableBytesView
        let head = view.prefix(searched)
        guard let found = head.firstRange(of: marker) else { return body }
        var out = ByteBuffer()
        out.reserveCapacity(body.readableBytes + account.utf8.count)
        out.writeBytes(view[view.startIndex..<found.lowerBound])
        out.writeString(account)
        out.writeBytes(view[found.upperBound...])
        return out
    }
}
