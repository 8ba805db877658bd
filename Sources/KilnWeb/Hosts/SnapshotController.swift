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
import NIOCore

/// `GET /hosts/snapshots/{bot}/{cell}/{sha256}`: a workspace snapshot this host holds, for
/// another host of the same store that starts a new workspace of that bot and cell. Host to
/// host only: a request without the secret the hosts share through the database (in
/// `X-Kiln-Host-Secret`) is answered 404 as if nothing were there, so a browser (or a build,
/// which cannot read the database) learns nothing, not even that a private bot exists.
struct SnapshotController {
    let store: any Store
    /// Where this host keeps its snapshots; nil: it serves none.
    let layout: DataDirectory?
    /// How much of a pack is read at once.
    static let pieceSize = 256 * 1024

    func addRoutes(to router: Router<KilnRequestContext>) {
        router.get("hosts/snapshots/{bot}/{cell}/{sha256}") { request, context in try await snapshot(request, context) }
    }

    static func isOpen(_ path: String) -> Bool { path.hasPrefix("/hosts/snapshots/") }

    private func snapshot(_ request: Request, _ context: KilnRequestContext) async throws -> Response {
        let (bot, cell, sha256) = (context.parameters.get("bot") ?? "", context.parameters.get("cell") ?? "", context.parameters.get("sha256") ?? "")
        let names = [bot, cell, sha256]
        guard let layout, let given = request.headers[.hostSecret], names.allSatisfy(Self.isPlainName) else {
            throw WebError.notFound("snapshot")
        }
        let secret = try await store.clusterSecret()
        guard Self.equal(Array(given.utf8), Array(secret.utf8)) else { throw WebError.notFound("snapshot") }
        // Opened before it is answered: a pack is named by its SHA-256, so this is that pack, or none.
        let descriptor = open(layout.snapshot(of: bot, cell: cell, sha256: sha256), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw WebError.notFound("snapshot") }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            throw WebError.notFound("snapshot")
        }
        let size = Int(info.st_size)
        let headers: HTTPFields = [.contentType: "application/zstd", .contentLength: String(size), .cacheControl: "no-store"]
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: size) { writer in
                defer { close(descriptor) }
                var offset = 0
                while offset < size {
                    var buffer = ByteBufferAllocator().buffer(capacity: min(size - offset, Self.pieceSize))
                    let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 0) { bytes in
                        max(0, pread(descriptor, bytes.baseAddress, min(bytes.count, size - offset), off_t(offset)))
                    }
                    guard read > 0 else { break }
                    offset += read
                    try await writer.write(buffer)
                }
                try await writer.finish(nil)
            })
    }

    /// A name that is one path component of Kiln's own making (a bot, a cell, a hex digest).
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".")
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: "-")
            }
    }

    /// Compares in time that does not depend on where they differ.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
