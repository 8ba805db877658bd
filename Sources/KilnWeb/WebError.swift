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
import KilnStore

/// Why a request was not answered with what it asked for. Every handler throws these; this is the
/// one place they become status codes. API and webhook routes answer JSON `{"error": "…"}`; pages
/// answer a short plain-text explanation.
enum WebError: Error, HTTPResponseError {
    case notFound(String)
    case badRequest(String)
    case unauthorized(String)
    /// A token that may see the bot but not do this (a viewer's queue).
    case forbidden(String)
    /// The request is sound but the state forbids it (canceling an integration that ended).
    case conflict(String)
    /// A person without a token where the server is closed to the anonymous: to the sign-in page.
    case signIn
    case tooLarge(limit: Int)
    /// The store cannot be reached (a database away): try again shortly.
    case unavailable(String)
    /// Too many failed sign-ins from this address (`SignInThrottle`): try again in that many seconds.
    case throttled(retryAfter: Int)

    var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .conflict: .conflict
        case .signIn: .seeOther
        case .tooLarge: .contentTooLarge
        case .unavailable: .serviceUnavailable
        case .throttled: .tooManyRequests
        }
    }

    var message: String {
        switch self {
        case .notFound(let what): "\(what) not found"
        case .badRequest(let why): why
        case .unauthorized(let why), .forbidden(let why), .conflict(let why): why
        case .signIn: "sign in at /login"
        case .tooLarge(let limit): "the body is larger than \(limit / 1024) KiB"
        case .unavailable(let why): "Kiln cannot read its database just now (\(why)); try again in a few seconds"
        case .throttled(let seconds): "too many failed sign-ins from this address: try again in \(seconds) s"
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [:]
        if case .unavailable = self { headers[.retryAfter] = "5" }
        if case .throttled(let seconds) = self { headers[.retryAfter] = "\(seconds)" }
        if case .signIn = self { headers[.location] = "/login" }
        if case .unauthorized = self { headers[.wwwAuthenticate] = "Bearer realm=\"kiln\"" }
        let path = request.uri.path
        if path.hasPrefix("/api/") || path.hasPrefix("/hooks/") {
            let body = (try? API.encode(API.Failure(error: message))) ?? Data("{}".utf8)
            headers[.contentType] = "application/json; charset=utf-8"
            return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}

/// Answers 503 with `Retry-After` when the store cannot be reached, instead of a bare 500: pages
/// and forges try again, and a webhook not answered 2xx is redelivered.
struct StoreUnavailableMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as StoreError {
            throw WebError.unavailable(Self.reason(error))
        }
    }

    static func reason(_ error: StoreError) -> String {
        switch error {
        case .unreachable(let url, _): "\(url) does not answer"
        default: "\(error)"
        }
    }
}
