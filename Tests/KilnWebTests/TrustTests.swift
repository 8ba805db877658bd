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
import KilnCore
import KilnStore
import KilnTestSupport
import KilnWeb
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Trust: security headers, throttled sign-in, the audit trail")
struct TrustTests {
    static let form = "application/x-www-form-urlencoded"

    @Test("Every route answers with the security headers, errors too; the policy names the live log's script by its hash")
    func headers() async throws {
        let harness = try await AccessHarness.start()
        defer { Task { await harness.web.stop() } }
        let admin = try await harness.token("root", .admin)
        let routes = webRoutes(
            WebDependencies(
                store: harness.web.store, bots: { [] }, assets: try WebAssets.load(), webhookSecret: nil,
                listen: ListenAddress(host: "127.0.0.1", port: 0)))
        var policies: Set<String> = []
        for route in routes + ["GET /nowhere", "GET /login", "GET /audit"] {
            let (method, path) = AccessHarness.concrete(route, bot: "open")
            for token in [nil, admin] {
                let reply = try await harness.send(method, path, token: token)
                let policy = try #require(reply.headers["content-security-policy"], "\(route): no Content-Security-Policy (\(reply.status))")
                policies.insert(policy)
                #expect(policy.contains("frame-ancestors 'none'") && policy.contains("default-src 'none'"), "\(route): \(policy)")
                #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "\(route): \(policy)")
                #expect(reply.headers["x-frame-options"] == "DENY", "\(route) \(reply.status)")
                #expect(reply.headers["referrer-policy"] == "same-origin", "\(route) \(reply.status)")
                #expect(reply.headers["x-content-type-options"] == "nosniff", "\(route) \(reply.status)")
            }
        }
        #expect(policies.count == 1, "one policy for every answer: \(policies)")

        // A running integration's page runs one inline script: the policy allows exactly it.
        let queued = try await harness.web.store.enqueue(QueueRequest(bot: "open", cause: .manual, commit: "abc1234", branch: "main"), now: Date())
        while try await harness.web.store.claimNext(owner: "test", now: Date()) != nil {}
        let page = try await harness.send("GET", "/bots/open/integrations/\(queued.integration.number)")
        let script = try #require(page.text.firstMatch(of: /<script>([\s\S]*?)<\/script>/)?.output.1, "the live log's script")
        let hash = "'sha256-" + Data(SHA256.hash(data: Data(script.utf8))).base64EncodedString() + "'"
        #expect(page.headers["content-security-policy"]?.contains("script-src \(hash)") == true, "\(page.headers)")
    }

    @Test("Ten wrong tokens from one address: the eleventh try is 429 with Retry-After, even with the right token; another address signs in at once")
    func throttled() async throws {
        let harness = try await AccessHarness.start()
        defer { Task { await harness.web.stop() } }
        let member = try await harness.token("alice", .member)
        let port = harness.web.port
        var statuses: [Int] = []
        for attempt in 1...12 {
            let reply = try await LoopbackHTTP.send(
                from: "127.0.0.2", port: port, "POST", "/login", headers: ["Content-Type": Self.form], body: "token=kiln_wrong-\(attempt)")
            statuses.append(reply.status)
            if attempt == 11 {
                let wait = Int(reply.headers["retry-after"] ?? "")
                #expect(wait.map { (1...60).contains($0) } == true, "Retry-After: \(reply.headers)")
            }
        }
        #expect(statuses == Array(repeating: 401, count: 10) + [429, 429], "\(statuses)")
        // The refused address is refused whatever it presents, at /login and as a bearer token.
        let right = try await LoopbackHTTP.send(
            from: "127.0.0.2", port: port, "POST", "/login", headers: ["Content-Type": Self.form], body: "token=\(member)")
        #expect(right.status == 429)
        let bearer = try await LoopbackHTTP.send(from: "127.0.0.2", port: port, "GET", "/api/bots", headers: ["Authorization": "Bearer \(member)"])
        #expect(bearer.status == 429 && bearer.headers["retry-after"] != nil)
        #expect(try await LoopbackHTTP.send(from: "127.0.0.2", port: port, "GET", "/api/bots").status == 200, "without a token it reads as anyone")
        // Another address: not slowed.
        let elsewhere = try await LoopbackHTTP.send(
            from: "127.0.0.3", port: port, "POST", "/login", headers: ["Content-Type": Self.form], body: "token=\(member)")
        #expect(elsewhere.status == 303, "\(elsewhere.status)")
        #expect(
            try await LoopbackHTTP.send(from: "127.0.0.3", port: port, "GET", "/api/bots", headers: ["Authorization": "Bearer \(member)"]).status
                == 200)

        let trail = try await harness.web.store.auditEvents(since: nil, limit: 100)
        #expect(trail.filter { $0.action == .signInFailed }.map(\.address) == Array(repeating: "127.0.0.2", count: 10))
        #expect(trail.filter { $0.action == .throttled }.map(\.address) == ["127.0.0.2"], "the refusal recorded once")
        #expect(trail.filter { $0.action == .signIn }.map { "\($0.token ?? "") \($0.address ?? "")" } == ["alice 127.0.0.3"])
    }

    @Test("Behind a proxy on this machine the address is the one it forwards; a revoked token's cookie is cleared once")
    func forwardedAndStale() async throws {
        let harness = try await AccessHarness.start()
        defer { Task { await harness.web.stop() } }
        let port = harness.web.port
        _ = try await LoopbackHTTP.send(
            from: "127.0.0.1", port: port, "GET", "/api/bots",
            headers: ["Authorization": "Bearer kiln_guess", "X-Forwarded-For": "10.9.8.7, 203.0.113.5"])
        let member = try await harness.token("alice", .member)
        try await harness.web.store.revokeToken(named: "alice")
        let stale = try await harness.send("GET", "/bots/open", cookie: "kiln_session=\(member)")
        #expect(stale.status == 200, "an invalid cookie reads as anyone")
        #expect(stale.headers["set-cookie"]?.hasPrefix("kiln_session=;") == true && stale.headers["set-cookie"]?.contains("Max-Age=0") == true)
        let failed = try await harness.web.store.auditEvents(since: nil, limit: 10).filter { $0.action == .signInFailed }
        #expect(failed.map(\.address) == ["203.0.113.5", "127.0.0.1"], "the proxy's last address, then the cookie's holder")
        #expect(failed.map(\.detail) == ["bearer token", "session cookie"])
    }

    @Test("The audit trail of the web: sign-in, a failed one, a queue and a cancel, with token and address; /audit for admins alone")
    func auditTrail() async throws {
        let harness = try await AccessHarness.start()
        defer { Task { await harness.web.stop() } }
        let member = try await harness.token("alice", .member)
        let admin = try await harness.token("root", .admin)
        _ = try await harness.send("POST", "/login", body: "token=kiln_nope", contentType: Self.form)
        let signed = try await harness.send("POST", "/login", body: "token=\(member)", contentType: Self.form)
        #expect(signed.status == 303)
        #expect(try await harness.send("POST", "/api/bots/open/integrations", token: member).status == 202)
        #expect(try await harness.send("POST", "/api/bots/open/integrations/2/cancel", token: member).status == 202)
        let trail = try await harness.web.store.auditEvents(since: nil, limit: 100)
        let lines = trail.map { event in
            [event.action.rawValue, event.token ?? "-", event.address ?? "-", event.bot.map { "\($0) #\(event.number ?? 0)" } ?? "-"]
        }
        #expect(
            lines == [
                ["sign-in-failed", "-", "127.0.0.1", "-"], ["sign-in", "alice", "127.0.0.1", "-"], ["queued", "alice", "127.0.0.1", "open #2"],
                ["canceled", "alice", "127.0.0.1", "open #2"],
            ])

        let page = try await harness.send("GET", "/audit", token: admin)
        #expect(page.status == 200, "\(page.text)")
        #expect(page.text.contains("sign-in-failed") && page.text.contains("canceled") && page.text.contains("href=\"/bots/open/integrations/2\""))
        let (canceled, failed) = (try #require(page.text.range(of: ">canceled<")), try #require(page.text.range(of: ">sign-in-failed<")))
        #expect(canceled.lowerBound < failed.lowerBound, "newest first")
        #expect(try await harness.send("GET", "/audit", token: member).status == 403)
        let anonymous = try await harness.send("GET", "/audit")
        #expect(anonymous.status == 303 && anonymous.headers["location"] == "/login")
    }
}

/// HTTP/1.1 over a socket bound to a loopback address of the test's choosing (127.0.0.2, …), so
/// that the server sees requests from several addresses: URLSession cannot pick its source.
enum LoopbackHTTP {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// Sends on a thread of its own: the server under test answers on Swift's cooperative
    /// threads, which a blocking socket must not hold.
    static func send(
        from source: String, port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: String = ""
    ) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try exchange(from: source, port: port, method, path, headers: headers, body: body) })
            }.start()
        }
    }

    private static func exchange(
        from source: String, port: Int, _ method: String, _ path: String, headers: [String: String], body: String
    ) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket("socket: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try withAddress(source, port: 0) { guard bind(fd, $0, $1) == 0 else { throw Failure.socket("bind \(source): errno \(errno)") } }
        try withAddress("127.0.0.1", port: port) { guard connect(fd, $0, $1) == 0 else { throw Failure.socket("connect: errno \(errno)") } }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n" + body
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard written > 0 else { throw Failure.socket("send: errno \(errno)") }
            sent += written
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let lines = (parts.first ?? "").components(separatedBy: "\r\n")
        guard let status = lines.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw Failure.socket("not an HTTP answer: \(text.prefix(200))")
        }
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: fields, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    private static func withAddress(_ host: String, port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Void) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw Failure.socket("not an IPv4 address: \(host)") }
        try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    enum Failure: Error { case socket(String) }
}
