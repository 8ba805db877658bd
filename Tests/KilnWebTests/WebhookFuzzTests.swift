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

import Crypto
import Foundation
import KilnStore
import KilnTestSupport
import Testing

@Suite("Reliability: fuzzing the webhook endpoints")
struct WebhookFuzzTests {
    /// Cases per run; `make test-reliability` runs 10,000 per endpoint.
    static var cases: Int { ProcessInfo.processInfo.environment["KILN_RELIABILITY_FULL"] == nil ? 2_500 : 40_000 }

    @Test("Random and mutated payloads, signed and not, on every endpoint: each answered 2xx or 4xx, recorded, never a 5xx")
    func fuzz() async throws {
        let web = try await WebFixture.start(bots: WebhookTests.bots)
        defer { Task { await web.stop() } }
        let forges = WebhookTests.cases
        var generator = SplitMix(seed: 0x6b696c6e)
        var requests: [(path: String, body: Data, headers: [String: String])] = []
        for index in 0..<Self.cases {
            let forge = forges[index % forges.count]
            var bytes = Array(forge.body)
            switch generator.next() % 5 {
            case 0: bytes = (0..<Int(generator.next() % 300)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            case 1: bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1))))
            default:
                for _ in 0...Int(generator.next() % 8) where !bytes.isEmpty {
                    let position = Int(generator.next() % UInt64(bytes.count))
                    let tokens = Array("{}[]\":,0null true\\x".utf8)
                    switch generator.next() % 3 {
                    case 0: bytes.remove(at: position)
                    case 1: bytes.insert(tokens[Int(generator.next() % UInt64(tokens.count))], at: position)
                    default: bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                    }
                }
            }
            let body = Data(bytes)
            // Mostly signed correctly, so that the payload reaches the parser.
            let signed = generator.next() % 4 != 0
            let headers = forge.event.merging(signed ? forge.signed(body, WebFixture.secret) : [:]) { a, _ in a }
            requests.append(("/hooks/\(forge.forge)", body, headers))
        }
        var statuses: [Int: Int] = [:]
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, request) in requests.enumerated() {
                if index >= 16, let status = try await group.next() { statuses[status, default: 0] += 1 }
                group.addTask { try await web.post(request.path, body: request.body, headers: request.headers).status }
            }
            for try await status in group { statuses[status, default: 0] += 1 }
        }
        #expect(statuses.values.reduce(0, +) == Self.cases)
        #expect(Set(statuses.keys).isSubset(of: [200, 202, 400, 401, 413]), "\(statuses)")
        #expect(statuses[400, default: 0] > 0 && statuses[401, default: 0] > 0)
        #expect(try await web.store.webhookDeliveries(limit: Self.cases + 10).count == Self.cases)
        #expect(try await web.store.integrityCheck() == "ok")
    }
}
