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

/// An error as a page, for a browser (a request that accepts `text/html`): the site's own
/// style, what went wrong in a sentence, and the way back. Scripts (and the API's clients, which
/// do not ask for HTML) keep the plain text or JSON of `WebError`. Outside the access check, so
/// that its refusals are pages too.
struct ErrorPageMiddleware: RouterMiddleware {
    typealias Context = KilnRequestContext
    let assets: WebAssets

    struct Page {
        var title: String
        var heading: String
        var message: String
        /// A token may open what this one may not (a private bot is not found without one).
        var offerSignIn: Bool
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            guard error.status.code >= 400, Self.wantsPage(request) else { throw error }
            var response = try error.response(from: request, context: context)
            let page = Self.page(error, path: request.uri.path)
            response.headers[.contentType] = "text/html; charset=utf-8"
            response.body = .init(byteBuffer: ByteBuffer(string: assets.render(page, "error")))
            return response
        }
    }

    /// A browser's request, not a webhook's.
    static func wantsPage(_ request: Request) -> Bool {
        guard !request.uri.path.hasPrefix("/hooks/"), let accept = request.headers[.accept] else { return false }
        return accept.contains("text/html")
    }

    static func page(_ error: any HTTPResponseError, path: String) -> Page {
        let message: String
        switch error {
        case let error as WebError: message = error.message
        case let error as HTTPError where error.status == .notFound: message = "There is no page at \(path)"
        case let error as HTTPError: message = error.body ?? error.status.reasonPhrase
        default: message = error.status.reasonPhrase
        }
        let heading =
            switch error.status {
            case .notFound: "Not found"
            case .unauthorized: "Sign in needed"
            case .forbidden: "Not allowed"
            case .conflict: "Not done"
            case .serviceUnavailable: "Not available just now"
            default: error.status.reasonPhrase
            }
        let sentence = message.prefix(1).uppercased() + message.dropFirst()
        return Page(
            title: "\(heading) · Kiln", heading: heading, message: sentence.hasSuffix(".") ? sentence : sentence + ".",
            offerSignIn: [.notFound, .unauthorized, .forbidden].contains(error.status))
    }
}
