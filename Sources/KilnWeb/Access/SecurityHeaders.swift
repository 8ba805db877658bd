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

/// The headers every answer carries, errors included, so that no page of Kiln can be framed by
/// another site, run a script Kiln did not write, or send its address to the sites its links
/// lead to (a private bot's page URL to the forge with every commit link followed):
///
/// - `Content-Security-Policy`: nothing by default; styles, images, fetches and form posts only
///   from Kiln itself; scripts only the templates' own inline ones, named by their SHA-256
///   (`WebAssets.scriptHashes`), never `unsafe-inline`; no framing (`frame-ancestors 'none'`).
/// - `X-Frame-Options: DENY`, for browsers that predate `frame-ancestors`.
/// - `Referrer-Policy: same-origin`: links within Kiln keep it, links out send none.
/// - `X-Content-Type-Options: nosniff`: a log or an asset served as text is never run as a script.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = KilnRequestContext
    let fields: HTTPFields

    init(scriptHashes: [String]) {
        let scripts = scriptHashes.isEmpty ? "'none'" : scriptHashes.joined(separator: " ")
        let policy = [
            "default-src 'none'", "script-src \(scripts)", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
            "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
        ]
        fields = [
            .contentSecurityPolicy: policy.joined(separator: "; "), .frameOptions: "DENY", .referrerPolicy: "same-origin",
            .xContentTypeOptions: "nosniff",
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        for field in fields where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }
}
