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
import HTTPTypes
import Hummingbird
import KilnCore
import KilnPresentation
import KilnStore
import Logging

/// `POST /hooks/{github,gitlab,gitea,generic}`: push and pull request events that queue integrations.
///
/// Every delivery is recorded with its outcome before it is answered, and a push's integrations
/// are queued in the same transaction: 202 with the integrations it reached (new or coalesced),
/// 200 when no bot follows the branch (or the event is neither a push nor a pull request) and when
/// a closed pull request stops what was queued or running for it, 400 when the payload cannot be
/// read, 401 when the signature is missing or wrong, 413 over 1 MiB.
struct WebhookController {
    let store: any WebhookInbox
    /// The bots as last loaded.
    let bots: @Sendable () async -> [Bot]
    /// The server-wide secret (`webhooks.secret-file`), if any.
    let secret: [UInt8]?
    let logger: Logger
    var clock: WallClock = .system

    static let maximumBody = 1 << 20

    struct Answer: Encodable {
        var outcome: WebhookDelivery.Outcome
        @Nullable var detail: String?
        var integrations: [Reached]

        struct Reached: Encodable {
            var bot: String
            var number: Int
            var coalesced: Bool
        }
    }

    func addRoutes(to router: Router<some RequestContext>) {
        for forge in Forges.all {
            router.post("hooks/\(forge.kind.rawValue)") { request, context in
                try await receive(request, forge: forge)
            }
        }
    }

    func receive(_ request: Request, forge: any Forge) async throws -> Response {
        let event = Self.eventName(request.headers, forge: forge)
        var delivery = WebhookDelivery(forge: forge.kind.rawValue, event: event, outcome: .ignored, statusCode: 0, receivedAt: clock.now)

        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.maximumBody {
            return try await answer(&delivery, .contentTooLarge, .tooLarge, "the body is larger than 1 MiB")
        }
        let body: [UInt8]
        do {
            var buffer = try await request.body.collect(upTo: Self.maximumBody)
            body = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            return try await answer(&delivery, .contentTooLarge, .tooLarge, "the body is larger than 1 MiB")
        }

        // Signature first, so that nothing about an unsigned request's payload is revealed.
        let bots = await self.bots().filter { $0.schedule.onCommit || $0.pullRequests.enabled }
        // Bot secrets are read at each delivery, so a rotated file takes effect at once. A file
        // that cannot be read stands for a secret nothing matches: its bot takes no delivery.
        var botSecrets: [String: [UInt8]?] = [:]
        for bot in bots {
            guard let path = bot.webhookSecretFile else { continue }
            let read = SecretFile.read(path)
            if read == nil {
                logger.warning(
                    "cannot read the bot's webhook-secret-file; it takes no webhook until the file holds a secret",
                    metadata: ["bot": "\(bot.name)", "file": "\(path)"])
            }
            botSecrets[bot.name] = read
        }
        let candidates = [secret].compactMap { $0 } + botSecrets.values.compactMap { $0 }
        var verified: [[UInt8]] = []
        if secret != nil || !botSecrets.isEmpty {
            let header = Self.header(forge.signatureHeaders, in: request.headers)
            guard let header else {
                return try await answer(
                    &delivery, .unauthorized, .unauthorized, "missing \(forge.signatureHeaders.joined(separator: " or ")) header")
            }
            verified = candidates.filter { Signature.isValid(header, body: body, secret: $0, scheme: forge.signature) }
            guard !verified.isEmpty else {
                return try await answer(&delivery, .unauthorized, .unauthorized, "the signature does not match the configured secret")
            }
        }

        let payload: [UInt8]
        do {
            payload = try Self.payload(of: body, contentType: request.headers[.contentType])
        } catch {
            return try await answer(&delivery, .badRequest, .malformed, error.description)
        }
        // A bot with its own secret takes only deliveries signed with it; others take the server's.
        let accepts = { (bot: Bot) -> Bool in
            if let own = botSecrets[bot.name] { return own.map { verified.contains($0) } ?? false }
            return secret.map { verified.contains($0) } ?? true
        }
        switch forge.delivery(event) {
        case .pullRequest: return try await receivePullRequest(payload, forge: forge, bots: bots, accepts: accepts, delivery: &delivery)
        case .other: return try await answer(&delivery, .ok, .ignored, event == "ping" ? "ping" : "not a push or pull request event: \(event)")
        case .push: break
        }
        let push: PushEvent
        do {
            push = try forge.push(Payload.object(payload))
        } catch {
            return try await answer(&delivery, .badRequest, .malformed, error.description)
        }
        let urls = push.repositoryURLs.compactMap { try? RepositoryURL(parsing: $0, relativeTo: "/") }
        delivery.repository = urls.first?.redacted
        delivery.branch = push.branch
        delivery.commit = push.commit
        guard push.isBranch, !push.deleted else {
            return try await answer(&delivery, .ok, .ignored, push.deleted ? "the branch was deleted" : "not a branch: \(push.branch)")
        }
        let requests = Push(repositories: Set(urls.map(\.identity)), branch: push.branch, commit: push.commit).requests(for: bots, accepts: accepts)
        guard !requests.isEmpty else {
            let repository = delivery.repository ?? "the repository"
            return try await answer(&delivery, .ok, .ignored, "no bot follows \(repository) branch \(push.branch)")
        }
        return try await queue(requests, delivery: &delivery, why: "\(forge.kind) push to \(push.branch)")
    }

    /// Records a delivery with the integrations it queues (or was coalesced into), and answers 202.
    private func queue(_ requests: [QueueRequest], delivery: inout WebhookDelivery, why: String) async throws -> Response {
        delivery.outcome = .queued
        delivery.statusCode = 202
        let outcomes = try await store.receiveWebhook(delivery, queue: requests, now: clock.now)
        for outcome in outcomes {
            logger.info(
                outcome.coalesced ? "coalesced" : "queued",
                metadata: ["bot": "\(outcome.integration.bot)", "number": "\(outcome.integration.number)", "cause": "webhook", "why": "\(why)"])
        }
        let reached = outcomes.map { Answer.Reached(bot: $0.integration.bot, number: $0.integration.number, coalesced: $0.coalesced) }
        return try Self.json(.accepted, Answer(outcome: .queued, detail: nil, integrations: reached))
    }

    /// A pull request event: queues its head for the bots that integrate its pull requests, or
    /// stops what they queued or run for it when it was closed or merged.
    private func receivePullRequest(
        _ payload: [UInt8], forge: any Forge, bots: [Bot], accepts: (Bot) -> Bool, delivery: inout WebhookDelivery
    ) async throws -> Response {
        let event: PullRequestEvent
        do {
            event = try forge.pullRequest(Payload.object(payload))
        } catch {
            return try await answer(&delivery, .badRequest, .malformed, error.description)
        }
        let pullRequest = event.pullRequest
        let urls = event.repositoryURLs.compactMap { try? RepositoryURL(parsing: $0, relativeTo: "/") }
        delivery.repository = urls.first?.redacted
        delivery.branch = pullRequest.base
        delivery.commit = event.commit
        guard let action = event.action else {
            return try await answer(&delivery, .ok, .ignored, "pull request action '\(event.actionName)' asks for no integration")
        }
        let change = PullRequestChange(repositories: Set(urls.map(\.identity)), pullRequest: pullRequest, commit: event.commit, action: action)
        let matched = change.bots(bots, accepts: accepts)
        guard !matched.isEmpty else {
            let repository = delivery.repository ?? "the repository"
            return try await answer(
                &delivery, .ok, .ignored,
                change.refusedAsFork(by: bots, accepts: accepts)
                    ? "pull request #\(pullRequest.number) comes from a fork, and no bot takes those (pull-requests: {forks: true})"
                    : "no bot integrates pull requests into \(repository) branch \(pullRequest.base)")
        }
        let why = "\(forge.kind) pull request #\(pullRequest.number) \(event.actionName)"
        switch action {
        case .integrate:
            let requests = matched.map { QueueRequest($0, cause: .webhook, pullRequest: pullRequest, commit: event.commit) }
            return try await queue(requests, delivery: &delivery, why: why)
        case .close:
            let reason = IntegrationReason.pullRequestClosed(number: pullRequest.number, merged: event.actionName == "merge")
            delivery.outcome = .closed
            delivery.statusCode = 200
            delivery.detail = reason.sentence
            let closings = matched.map { PullRequestClosing(bot: $0.name, number: pullRequest.number, reason: reason) }
            let receipt = try await store.receiveWebhook(delivery, queue: [], close: closings, now: clock.now)
            for integration in receipt.stopped {
                logger.info("stopping", metadata: ["bot": "\(integration.bot)", "number": "\(integration.number)", "why": "\(why)"])
            }
            let reached = receipt.stopped.map { Answer.Reached(bot: $0.bot, number: $0.number, coalesced: false) }
            return try Self.json(.ok, Answer(outcome: .closed, detail: delivery.detail, integrations: reached))
        }
    }

    /// The JSON of a delivery: the body itself, or for GitHub's form-encoded deliveries
    /// (`application/x-www-form-urlencoded`) its `payload` field.
    static func payload(of body: [UInt8], contentType: String?) throws(PayloadError) -> [UInt8] {
        // A JSON body is JSON whatever it is labelled (curl and many HTTP libraries label every
        // POST body as a form).
        let first = body.first { ![UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains($0) }
        guard let contentType, contentType.lowercased().hasPrefix("application/x-www-form-urlencoded"), first != UInt8(ascii: "{") else {
            return body
        }
        // Read by hand: URLComponents traps on a query with characters a URL may not hold.
        for field in body.split(separator: UInt8(ascii: "&")) {
            let parts = field.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, Array(parts[0]) == Array("payload".utf8) else { continue }
            // Form encoding writes spaces as '+'.
            let text = String(decoding: parts[1].map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            guard let decoded = text.removingPercentEncoding else { throw .badFormEncoding }
            return Array(decoded.utf8)
        }
        throw .missing("payload")
    }

    /// Records a delivery that queues nothing, and answers it.
    private func answer(
        _ delivery: inout WebhookDelivery, _ status: HTTPResponse.Status, _ outcome: WebhookDelivery.Outcome, _ detail: String
    ) async throws -> Response {
        delivery.outcome = outcome
        delivery.statusCode = status.code
        delivery.detail = detail
        _ = try await store.receiveWebhook(delivery, queue: [], now: clock.now)
        if status.code >= 400 {
            logger.warning("webhook refused", metadata: ["forge": "\(delivery.forge)", "status": "\(status.code)", "why": "\(detail)"])
        }
        return try Self.json(status, Answer(outcome: outcome, detail: detail, integrations: []))
    }

    static func json(_ status: HTTPResponse.Status, _ answer: Answer) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: try API.encode(answer))))
    }

    static func eventName(_ headers: HTTPFields, forge: any Forge) -> String {
        header(forge.eventHeaders, in: headers) ?? forge.unnamedEvent
    }

    /// The first of `names` that `headers` has.
    static func header(_ names: [String], in headers: HTTPFields) -> String? {
        names.lazy.compactMap { HTTPField.Name($0).flatMap { headers[$0] } }.first
    }
}
