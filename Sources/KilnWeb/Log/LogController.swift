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

/// `GET /bots/{bot}/integrations/{n}/log` (`?cell=NAME`: one cell's of a matrix): the log as text/plain. A completed integration's log is
/// sent as the store has it; a running one's is streamed as it grows, until the integration ends.
///
/// The log is never named by the request: the bot must be a valid, known bot name and the number
/// a known integration of it; the store finds the log.
struct LogController {
    let store: any IntegrationRecords & LogsAndAssets & ChangeFeed
    /// How often a followed log is looked at for more when no change was heard (log files are
    /// not watched; the database says when a chunk arrives from any host).
    var followInterval: Duration = .milliseconds(200)

    static let chunkSize = 64 * 1024

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("bots/{bot}/integrations/{number}/log") { request, context in
            let integration = try await locate(
                bot: try context.parameters.require("bot"), number: context.parameters.get("number"),
                cell: request.uri.queryParameters["cell"].map(String.init))
            let headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache", .xContentTypeOptions: "nosniff"]
            guard integration.step != .completed else {
                guard try await store.logSize(bot: integration.bot, number: integration.number) != nil else {
                    let note = integration.expired ? "the log was deleted by retention" : "no log was recorded"
                    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: "(\(note))\n")))
                }
                return Response(
                    status: .ok, headers: headers,
                    body: ResponseBody { writer in
                        var offset = 0
                        while let chunk = try await read(integration, from: offset) {
                            try await writer.write(ByteBuffer(bytes: chunk))
                            offset += chunk.count
                        }
                        try await writer.finish(nil)
                    })
            }
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    try await follow(integration, into: &writer)
                    try await writer.finish(nil)
                })
        }
    }

    /// The next chunk of the log from `offset` (at most `limit` bytes); nil at its end (or when
    /// there is none).
    func read(_ integration: Integration, from offset: Int, limit: Int = chunkSize) async throws -> [UInt8]? {
        let chunk = try await store.readLog(bot: integration.bot, number: integration.number, from: offset, limit: limit)
        guard let chunk, !chunk.isEmpty else { return nil }
        return chunk
    }

    /// Sends what the log holds, then what is appended, until the integration has completed and
    /// everything it wrote has been sent.
    private func follow(_ integration: Integration, into writer: inout any ResponseBodyWriter) async throws {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let changes = store.logChanges()
        let interval = followInterval
        let listening = Task {
            for await _ in changes { wake.yield() }
        }
        let ticking = Task {
            while !Task.isCancelled {
                await MonotonicClock.system.sleep(for: interval)
                wake.yield()
            }
        }
        defer {
            listening.cancel()
            ticking.cancel()
        }
        var waiting = wakeups.makeAsyncIterator()
        var offset = 0
        while !Task.isCancelled {
            var sent = false
            while let chunk = try await read(integration, from: offset) {
                try await writer.write(ByteBuffer(bytes: chunk))
                offset += chunk.count
                sent = true
            }
            if !sent {
                let now = try await current(integration)
                if now?.step == .completed || now?.id != integration.id {
                    // Whatever was written before the store said completed is in the log by now.
                    while let chunk = try await read(integration, from: offset) {
                        try await writer.write(ByteBuffer(bytes: chunk))
                        offset += chunk.count
                    }
                    return
                }
                _ = await waiting.next()
            }
        }
    }

    func locate(bot: String, number: String?, cell: String? = nil) async throws -> Integration {
        guard Bot.isValidName(bot), let number = number.flatMap({ Int($0) }), number > 0,
            let integration = try await store.integrations(bot: bot, limit: 1, before: number + 1).first, integration.number == number
        else { throw WebError.notFound("log of integration \(number ?? "?") of bot '\(bot)'") }
        guard let cell else { return integration }
        guard let found = try await store.integration(bot: bot, number: number)?.cells.first(where: { $0.cell?.name == cell }) else {
            throw WebError.notFound("cell '\(cell)' of integration \(number) of bot '\(bot)'")
        }
        return found
    }

    /// The integration (or cell) as it stands now.
    private func current(_ integration: Integration) async throws -> Integration? {
        guard let matrix = integration.cellOf else {
            return try await store.integrations(bot: integration.bot, limit: 1, before: integration.number + 1).first
        }
        return try await store.integration(bot: integration.bot, number: matrix)?.cells.first { $0.id == integration.id }
    }

    /// The end of an integration's log, at most `limit` bytes, starting at a line; nil when there
    /// is no log. A store that cannot say fails the page, as its other reads do.
    static func tail(
        of integration: Integration, in store: any LogsAndAssets, limit: Int = 64 * 1024
    ) async throws(StoreError) -> (text: String, truncated: Bool)? {
        guard let size = try await store.logSize(bot: integration.bot, number: integration.number) else { return nil }
        let start = max(0, size - limit)
        guard var bytes = try await store.readLog(bot: integration.bot, number: integration.number, from: start, limit: limit) else { return nil }
        if start > 0, let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
            bytes = Array(bytes[bytes.index(after: newline)...])
        }
        return (String(decoding: bytes, as: UTF8.self), start > 0)
    }
}
