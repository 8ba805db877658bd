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
import KilnStore

/// `GET /api/…`: the JSON docs/http.md describes. Unknown bots and numbers are 404 with a JSON error.
struct APIController {
    let store: any IntegrationRecords & HostRegistry
    let cache: ResponseCache

    /// Most integrations one history request returns.
    static let maximumLimit = 200

    /// `/api/bots` as `access` may see it, from the cache.
    func botList(for access: Access) async throws -> ByteBuffer {
        // The anonymous' key is a constant: nothing is built for the most common request.
        let key = access.role == nil && access.anonymousRead ? "api/bots|public" : "api/bots|" + access.scope
        return try await cache.body(for: key) {
            ByteBuffer(bytes: try API.encode(try await API.bots(from: store, visibleTo: access)))
        }
    }

    func addRoutes(to router: Router<KilnRequestContext>) {
        let api = router.group("api")
        api.get("bots") { _, context in
            Self.json(try await botList(for: context.access))
        }
        api.get("hosts") { _, _ in
            Self.json(try API.encode(try await API.hosts(from: store)))
        }
        api.get("bots/{bot}") { _, context in
            let overview = try await store.overview(of: try context.parameters.require("bot"))
            return Self.json(try API.encode(API.Bot(overview)))
        }
        api.get("bots/{bot}/integrations") { request, context in
            let bot = try await store.overview(of: try context.parameters.require("bot")).state.name
            let page = try Page(request.uri.queryParameters, maximumLimit: Self.maximumLimit)
            let integrations = try await store.integrations(bot: bot, limit: page.limit, before: page.before)
            return Self.json(try API.encode(integrations.map(API.Integration.init)))
        }
        api.get("bots/{bot}/integrations/{number}") { _, context in
            let bot = try await store.overview(of: try context.parameters.require("bot")).state.name
            let number = try Self.number(context.parameters.get("number"))
            guard let detail = try await store.integration(bot: bot, number: number) else {
                throw WebError.notFound("integration \(number) of bot '\(bot)'")
            }
            return Self.json(try API.encode(API.IntegrationDetail(detail)))
        }
        api.get("bots/{bot}/tests/**") { request, context in
            let bot = try await store.overview(of: try context.parameters.require("bot")).state.name
            let (suite, name) = try TestAddress.parse(context.parameters.getCatchAll())
            let page = try Page(request.uri.queryParameters, defaultLimit: PagesController.chartSpan, maximumLimit: Self.maximumLimit)
            let history = try await store.testHistory(bot: bot, suite: suite, name: name, limit: page.limit)
            return Self.json(try API.encode(API.TestHistory(bot: bot, history)))
        }
    }

    static func number(_ text: String?) throws -> Int {
        guard let text, let number = Int(text), number > 0 else { throw WebError.notFound("integration '\(text ?? "")'") }
        return number
    }

    static func json(_ data: Data) -> Response {
        json(ByteBuffer(bytes: data))
    }

    static func json(_ body: ByteBuffer) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }
}

/// `?limit=&before=` of a history request.
struct Page {
    var limit: Int
    var before: Int?

    init(_ query: Parameters, defaultLimit: Int = 25, maximumLimit: Int) throws {
        limit = defaultLimit
        if let text = query.get("limit") {
            guard let value = Int(text), (1...maximumLimit).contains(value) else {
                throw WebError.badRequest("limit must be a whole number from 1 to \(maximumLimit), not '\(text)'")
            }
            limit = value
        }
        if let text = query.get("before") {
            guard let value = Int(text), value > 0 else { throw WebError.badRequest("before must be an integration number, not '\(text)'") }
            before = value
        }
    }
}
