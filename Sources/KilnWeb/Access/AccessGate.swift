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
import Synchronization

/// Who a request is, from its token: `Authorization: Bearer`, else the session cookie of the
/// sign-in page, else nobody. Tokens are looked up by hash and compared in constant time, from
/// memory while the store's change feed vouches for it (`TokenMemory`), so a revoked token fails
/// on every host once it hears the change (at most a second later), and a host that cannot hear the database reads the store
/// (and refuses when it cannot). A wrong token is a failed sign-in: recorded in the audit trail and counted against
/// its address (`SignInThrottle`), which is refused for a while after too many.
struct AccessGate: Sendable {
    let store: any AccessRecords & AuditTrail
    let anonymous: AnonymousAccess
    let cache: ResponseCache
    let usage = TokenUsage()
    let memory = TokenMemory()
    let throttle = SignInThrottle()
    let clock: WallClock

    /// The session cookie's name.
    static let cookie = "kiln_session"

    /// Who a request is, as `identify` found.
    struct Identity {
        var access: Access
        /// The hash of its session's token, when it came by cookie.
        var sessionHash: String?
        /// It sent a session cookie that is not valid (revoked): the answer clears it.
        var staleCookie = false
    }

    /// Who `request` is. A bearer token that is not valid is refused (401); a cookie that is not
    /// is ignored (its holder is anonymous, and may sign in again). An address refused for too
    /// many failures is answered 429 whatever it presents.
    func identify(_ request: Request, from address: String) async throws -> Identity {
        if let wait = await throttle.wait(for: address, now: clock.now) { throw WebError.throttled(retryAfter: wait) }
        if let header = request.headers[.authorization] {
            guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
                throw WebError.unauthorized("give the token as Authorization: Bearer TOKEN")
            }
            let value = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
            guard let token = try await token(matching: value) else {
                try await failed(from: address, how: "bearer token")
                throw WebError.unauthorized("the token is not valid: it was revoked, or never made (kiln token add NAME --role ROLE)")
            }
            return Identity(access: .token(token))
        }
        if let value = Self.cookieValue(in: request) {
            if let token = try await token(matching: value) { return Identity(access: .token(token), sessionHash: TokenSecret.hash(value)) }
            try await failed(from: address, how: "session cookie")
            return Identity(access: anonymousAccess, staleCookie: true)
        }
        return Identity(access: anonymousAccess)
    }

    var anonymousAccess: Access { .anonymous(anonymous) }

    /// The token whose value is `value`, if one is stored.
    func token(matching value: String) async throws -> AccessToken? {
        guard !value.isEmpty else { return nil }
        // Looked up by its hash (a SHA-256 of 256 random bits: how long an index takes to miss
        // says nothing of any token), then compared in constant time.
        let hash = TokenSecret.hash(value)
        guard let (stored, token) = try await memory.token(hash: hash, store: store), TokenSecret.same(stored, hash) else { return nil }
        await usage.used(token.name, at: clock.now, store: store)
        return token
    }

    /// Records a failed sign-in from `address` (`how` the token came), and the refusal it starts
    /// when it is one too many.
    func failed(from address: String, how: String) async throws {
        let now = clock.now
        try await store.recordAudit(AuditEvent(at: now, action: .signInFailed, address: address, detail: how))
        if await throttle.failed(address, now: now) {
            let detail = "\(SignInThrottle.limit) failed sign-ins within \(Int(SignInThrottle.window)) s: refused for \(Int(SignInThrottle.window)) s"
            try await store.recordAudit(AuditEvent(at: now, action: .throttled, address: address, detail: detail))
        }
    }

    /// Every bot and whether it is private, as the store last said (within the response
    /// cache's 100 ms).
    func botVisibility() async throws -> [String: Bool] {
        try await cache.botVisibility(from: store)
    }

    static func cookieValue(in request: Request) -> String? {
        guard let header = request.headers[.cookie] else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            if pair.hasPrefix(cookie + "=") { return String(pair.dropFirst(cookie.count + 1)) }
        }
        return nil
    }
}

/// When each token was last used, recorded in the store at most once a minute per token: a
/// stamp for `kiln token list`, not a write on every request. Deciding costs a lock, not a hop.
final class TokenUsage: Sendable {
    private let recorded = Mutex<[String: Date]>([:])

    func used(_ name: String, at now: Date, store: any AccessRecords) async {
        let due = recorded.withLock { recorded in
            if let last = recorded[name], now.timeIntervalSince(last) < 60 { return false }
            recorded[name] = now
            return true
        }
        guard due else { return }
        // Best effort: a stamp the store refuses now is written on a later use.
        do { try await store.tokenUsed(named: name, at: now) } catch { recorded.withLock { $0[name] = nil } }
    }
}

/// The one access check, in front of every route: it decides who the request is, sends the
/// anonymous away where the server is closed to them, and answers 404 for a bot the request may
/// not see with the very answer of a bot that does not exist (it answers both). Lists (the front page, `/api/bots`) show
/// only what `context.access` may see.
///
/// Open to all: `/health`, the sign-in page, the stylesheet, and the webhooks (their HMAC is
/// their check).
struct AccessMiddleware: RouterMiddleware {
    typealias Context = KilnRequestContext
    let gate: AccessGate

    static func isOpen(_ path: String) -> Bool {
        path == "/health" || path == "/login" || path == "/logout" || path == "/style.css" || path.hasPrefix("/hooks/")
            || SnapshotController.isOpen(path)
    }

    /// Whether `path` is a page for people (whose header may offer "Sign in"), not the API,
    /// a log as text, a badge or an asset.
    static func isPage(_ path: String) -> Bool {
        !path.hasPrefix("/api/") && path != "/metrics" && !path.hasSuffix("/log") && !path.hasSuffix(".svg") && !path.contains("/assets/")
            && !path.contains("/latest/")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if Self.isOpen(path) { return try await next(request, context) }
        var context = context
        var staleCookie = false
        if request.headers[.authorization] == nil, request.headers[.cookie] == nil {
            context.access = gate.anonymousAccess
        } else {
            let identity = try await gate.identify(request, from: context.clientAddress(request))
            (context.access, context.sessionTokenHash, staleCookie) = (identity.access, identity.sessionHash, identity.staleCookie)
        }
        if context.access.role == nil, request.method == .get, Self.isPage(path) {
            context.signInOffered = try await gate.memory.anyToken(store: gate.store)
        }
        guard staleCookie else { return try await admit(request, context: context, next: next) }
        // A revoked token's cookie is cleared, so that it is offered (and fails) once.
        do {
            var response = try await admit(request, context: context, next: next)
            response.headers[.setCookie] = SignInController.cookie("", maxAge: 0, secure: false)
            return response
        } catch let error as any HTTPResponseError {
            var response = try error.response(from: request, context: context)
            response.headers[.setCookie] = SignInController.cookie("", maxAge: 0, secure: false)
            return response
        }
    }

    /// What `handle` does once it knows who asks: the anonymous where the server is closed to
    /// them, and bots the request may not see, are sent away.
    private func admit(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard context.access.mayRead else {
            if request.method == .get, !path.hasPrefix("/api/"), path != "/metrics" { throw WebError.signIn }
            throw WebError.unauthorized("this Kiln answers only requests with a token: give one as Authorization: Bearer TOKEN")
        }
        if let bot = context.parameters.get("bot") {
            guard let isPrivate = try await gate.botVisibility()[bot], context.access.maySee(bot, isPrivate: isPrivate) else {
                throw WebError.notFound("bot '\(bot)'")
            }
        }
        return try await next(request, context)
    }
}
