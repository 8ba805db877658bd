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

/// An integration's assets (its archive), streamed from the store with `Content-Length`, an
/// `ETag` (the SHA-256) and single byte ranges; and `latest`, the stable address of a bot's
/// newest accepted asset (a redirect to the numbered one, so that caches behave).
///
/// An asset is never named by a path: the bot and number must be a known integration, the name
/// one of its assets; the store finds the bytes (on any host).
struct AssetController {
    let store: any LogsAndAssets
    let bots: @Sendable () async -> [Bot]

    /// Bytes read from the store and written at a time: memory stays flat whatever the size.
    static let pieceSize = 1 << 20

    func addRoutes(to router: Router<some RequestContext>) {
        router.get("bots/{bot}/integrations/{number}/assets/{name}") { request, context in
            let bot = try context.parameters.require("bot")
            let number = try APIController.number(context.parameters.get("number"))
            let name = try context.parameters.require("name")
            guard let asset = try await store.asset(bot: bot, number: number, name: name) else {
                throw WebError.notFound("asset '\(name)' of \(bot) #\(number)")
            }
            return try download(asset, bot: bot, number: number, request: request)
        }
        router.get("bots/{bot}/latest/{name}") { _, context in
            let name = try context.parameters.require("name")
            let botName = try context.parameters.require("bot")
            guard let bot = await bots().first(where: { $0.name == botName }) else { throw WebError.notFound("bot '\(botName)'") }
            guard let number = try await store.latestAsset(bot: bot.name, name: name, results: bot.archive.on) else {
                let accepted = bot.archive.on.map(\.rawValue).sorted().joined(separator: ", ")
                throw WebError.notFound("asset '\(name)' of an integration of \(bot.name) that ended \(accepted)")
            }
            return Response(
                status: .found,
                headers: [.location: Self.path(bot: bot.name, number: number, name: name), .cacheControl: "no-cache"])
        }
    }

    static func path(bot: String, number: Int, name: String) -> String {
        "/bots/\(bot)/integrations/\(number)/assets/\(name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name)"
    }

    /// The file name a download is saved under: `<bot>-<number>.tar.gz` for `<bot>.tar.gz`.
    static func downloadName(_ name: String, number: Int) -> String {
        for suffix in [".tar.gz", ".tgz", ".zip"] where name.hasSuffix(suffix) {
            return "\(name.dropLast(suffix.count))-\(number)\(suffix)"
        }
        return "\(number)-\(name)"
    }

    private func download(_ asset: Asset, bot: String, number: Int, request: Request) throws -> Response {
        let etag = "\"\(asset.sha256)\""
        var headers: HTTPFields = [
            .contentType: asset.name.hasSuffix(".gz") || asset.name.hasSuffix(".tgz") ? "application/gzip" : "application/octet-stream",
            .contentDisposition: "attachment; filename=\"\(Self.downloadName(asset.name, number: number))\"",
            .eTag: etag, .acceptRanges: "bytes", .cacheControl: "public, max-age=86400",
        ]
        if let match = request.headers[.ifNoneMatch], match == etag || match == "*" {
            return Response(status: .notModified, headers: headers)
        }
        var requested = 0..<asset.size
        var status = HTTPResponse.Status.ok
        if let header = request.headers[.range], request.headers[.ifRange].map({ $0 == etag }) ?? true {
            guard let parsed = ByteRange.parse(header, size: asset.size) else {
                headers[.contentRange] = "bytes */\(asset.size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            requested = parsed
            status = .partialContent
            headers[.contentRange] = "bytes \(parsed.lowerBound)-\(parsed.upperBound - 1)/\(asset.size)"
        }
        headers[.contentLength] = String(requested.count)
        let (store, location, range) = (store, store.assetLocation(bot: bot, number: number, name: asset.name), requested)
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: range.count) { writer in
                if let location {
                    // Read straight into the buffers NIO sends: no copy through Data.
                    let descriptor = open(location, O_RDONLY | O_CLOEXEC)
                    guard descriptor >= 0 else { throw WebError.notFound("the bytes of asset '\(asset.name)'") }
                    defer { close(descriptor) }
                    var offset = range.lowerBound
                    while offset < range.upperBound {
                        var buffer = ByteBufferAllocator().buffer(capacity: min(range.upperBound - offset, Self.pieceSize))
                        let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 0) { bytes in
                            max(0, pread(descriptor, bytes.baseAddress, min(bytes.count, range.upperBound - offset), off_t(offset)))
                        }
                        guard read > 0 else { break }
                        offset += read
                        try await writer.write(buffer)
                    }
                } else {
                    var offset = range.lowerBound
                    while offset < range.upperBound {
                        let piece = try await store.readAsset(
                            bot: bot, number: number, name: asset.name, from: offset, limit: min(range.upperBound - offset, Self.pieceSize))
                        guard !piece.isEmpty else { break }
                        try await writer.write(ByteBuffer(bytes: piece))
                        offset += piece.count
                    }
                }
                try await writer.finish(nil)
            })
    }
}

/// One byte range of `Range: bytes=…` (RFC 9110 §14.1.2): `a-b`, `a-` or `-n` (the last n
/// bytes). Several ranges are answered whole, as the RFC allows.
enum ByteRange {
    static func parse(_ header: String, size: Int) -> Range<Int>? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(",") else { return 0..<size }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            return max(0, size - suffix)..<size
        }
        guard let start = Int(parts[0]), start >= 0, start < size else { return nil }
        if parts[1].isEmpty { return start..<size }
        guard let end = Int(parts[1]), end >= start else { return nil }
        return start..<min(end + 1, size)
    }
}
