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
import Hummingbird
import KilnCore

/// `GET /login`, `POST /login` (form field `token`) and `POST /logout`: sign-in for people, with
/// a session cookie holding the token (HttpOnly, SameSite=Strict, Secure when `public-url` is
/// https), checked on every request like a bearer token.
struct SignInController {
    let gate: AccessGate
    let assets: WebAssets
    /// Whether people reach Kiln over https (`public-url`): the cookie is then Secure.
    let secure: Bool

    struct SignInPage {
        var title = "Sign in · Kiln"
        var error: String?
    }

    func addRoutes(to router: Router<KilnRequestContext>) {
        router.get("login") { _, _ in
            PagesController.html(ByteBuffer(string: assets.render(SignInPage(), "login")))
        }
        router.post("login") { request, context in
            let address = context.clientAddress(request)
            if let wait = await gate.throttle.wait(for: address, now: gate.clock.now) {
                let error = "Too many failed sign-ins from this address: try again in \(wait) s."
                var response = PagesController.html(ByteBuffer(string: assets.render(SignInPage(error: error), "login")))
                response.status = .tooManyRequests
                response.headers[.retryAfter] = "\(wait)"
                return response
            }
            let form = try await FormBody.read(request)
            guard let value = form["token"], let token = try await gate.token(matching: value) else {
                try await gate.failed(from: address, how: "the sign-in page")
                var response = PagesController.html(
                    ByteBuffer(string: assets.render(SignInPage(error: "That token is not valid: it was revoked, or never made."), "login")))
                response.status = .unauthorized
                return response
            }
            try await gate.store.recordAudit(AuditEvent(at: gate.clock.now, action: .signIn, token: token.name, address: address))
            return Self.redirect(to: "/", cookie: cookie(value, maxAge: 30 * 86_400))
        }
        router.post("logout") { _, _ in
            Self.redirect(to: "/login", cookie: cookie("", maxAge: 0))
        }
    }

    func cookie(_ value: String, maxAge: Int) -> String {
        Self.cookie(value, maxAge: maxAge, secure: secure)
    }

    static func cookie(_ value: String, maxAge: Int, secure: Bool) -> String {
        "\(AccessGate.cookie)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func redirect(to location: String, cookie: String? = nil) -> Response {
        var headers: HTTPFields = [.location: location]
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }
}

/// An `application/x-www-form-urlencoded` body, as forms send it.
enum FormBody {
    static let limit = 16 * 1024

    static func read(_ request: Request) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: limit)
        return parse(String(buffer: buffer))
    }

    static func parse(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part) }
            guard let name = parts.first else { continue }
            fields[decode(name)] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    static func isForm(_ request: Request) -> Bool {
        request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
    }
}
