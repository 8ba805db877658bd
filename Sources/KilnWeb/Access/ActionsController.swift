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

/// What members do: `POST /api/bots/{bot}/integrations` queues an integration (cause `manual`,
/// `{"pullRequest": N}` for a pull request Kiln knows), `POST /api/bots/{bot}/integrations/{n}/cancel`
/// stops one, `POST /api/bots/{bot}/integrations/{n}/approve` lets a fork's pull request waiting
/// for a member's approval run. A bearer token or the session cookie; a form sent with the cookie must carry its
/// anti-forgery value (`csrf`), and is answered by sending the browser back to the page.
///
/// No token: 401. A viewer, or a member whose token names other bots: 403. A bot the request
/// may not see: 404 (`AccessMiddleware`).
struct ActionsController {
    let store: any IntegrationQueue & IntegrationRecords & AccessRecords & AuditTrail
    let bots: @Sendable () async -> [Bot]
    let gate: AccessGate
    let clock: WallClock

    struct Queued: Encodable {
        var bot: String
        var number: Int
        var coalesced: Bool
    }

    func addRoutes(to router: Router<KilnRequestContext>) {
        router.post("api/bots/{bot}/integrations") { request, context in
            let (bot, form) = try await authorize(request, context)
            let asked = try await Asked(request, form: form)
            if let rerun = asked.rerun { return try await queueRerun(of: rerun, only: asked.only, bot: bot, form: form, request, context) }
            let pull = asked.pullRequest
            let queue: QueueRequest
            if let pull {
                let known = try await store.pullRequests(bot: bot.name, includeClosed: false).first { $0.pullRequest.number == pull }
                guard let known else { throw WebError.notFound("open pull request #\(pull) of bot '\(bot.name)'") }
                guard !known.pullRequest.fork || bot.pullRequests.forks else {
                    throw WebError.forbidden("pull request #\(pull) comes from a fork, which this bot does not integrate (pull-requests.forks)")
                }
                queue = QueueRequest(bot, cause: .manual, pullRequest: known.pullRequest, commit: nil)
            } else {
                queue = QueueRequest(bot, cause: .manual)
            }
            return try await enqueue(queue, saying: pull.map { "pull request #\($0)" }, bot: bot, form: form, request, context)
        }
        router.post("api/bots/{bot}/integrations/{number}/cancel") { request, context in
            let (bot, form) = try await authorize(request, context)
            let number = try APIController.number(context.parameters.get("number"))
            let reason = IntegrationReason.canceledFromWeb(token: context.access.tokenName)
            guard let canceled = try await store.cancel(bot: bot.name, number: number, reason: reason, now: clock.now) else {
                guard try await store.integration(bot: bot.name, number: number) != nil else {
                    throw WebError.notFound("integration \(number) of bot '\(bot.name)'")
                }
                // A Cancel pressed on a page that was out of date: back to the page, which says so.
                if form != nil { return SignInController.redirect(to: "/bots/\(bot.name)/integrations/\(number)?already=ended") }
                throw WebError.conflict("integration \(number) of bot '\(bot.name)' has ended: there is nothing to cancel")
            }
            try await audit(.canceled, request, context, bot: bot.name, number: number)
            let page = "/bots/\(bot.name)/integrations/\(number)"
            if form != nil { return SignInController.redirect(to: page) }
            var response = APIController.json(try API.encode(Queued(bot: bot.name, number: canceled.number, coalesced: false)))
            response.status = .accepted
            return response
        }
        router.post("api/bots/{bot}/integrations/{number}/approve") { request, context in
            let (bot, form) = try await authorize(request, context)
            let number = try APIController.number(context.parameters.get("number"))
            let page = "/bots/\(bot.name)/integrations/\(number)"
            let approver = context.access.tokenName ?? "a member"
            guard try await store.approve(bot: bot.name, number: number, by: approver, now: clock.now) != nil else {
                guard let existing = try await store.integration(bot: bot.name, number: number) else {
                    throw WebError.notFound("integration \(number) of bot '\(bot.name)'")
                }
                // An Approve pressed on a page that was out of date (another member was first): the page says where it is.
                if form != nil { return SignInController.redirect(to: page) }
                throw WebError.conflict(
                    "integration \(number) of bot '\(bot.name)' waits for no approval: it is \(existing.integration.step.rawValue)")
            }
            try await audit(.approved, request, context, bot: bot.name, number: number)
            if form != nil { return SignInController.redirect(to: page) }
            var response = APIController.json(try API.encode(Queued(bot: bot.name, number: number, coalesced: false)))
            response.status = .accepted
            return response
        }
    }

    /// `{"rerun": N}` or `{"rerun": N, "only": "failed"}`: integration N's commit again, whole or
    /// only what failed in it (`Rerun`). 409 when N cannot be run so; a form pressed on a page
    /// that was out of date goes back to N's page, which says why.
    private func queueRerun(
        of number: Int, only: Rerun.Scope, bot: Bot, form: [String: String]?, _ request: Request, _ context: KilnRequestContext
    ) async throws -> Response {
        // A matrix's cells are numbered below zero and are no integration of the bot's history.
        guard number > 0, let original = try await store.integration(bot: bot.name, number: number) else {
            throw WebError.notFound("integration \(number) of bot '\(bot.name)'")
        }
        let queue: QueueRequest
        do {
            queue = try Rerun.request(original, only: only)
        } catch {
            if form != nil { return SignInController.redirect(to: "/bots/\(bot.name)/integrations/\(number)?rerun=\(only.rawValue)") }
            throw WebError.conflict(error.sentence)
        }
        return try await enqueue(queue, saying: queue.rerunOf?.sentence, bot: bot, form: form, request, context)
    }

    /// Queues `queue` and records it in the audit trail (with `what`, and whether it joined one
    /// queued): 202 with `{bot, number, coalesced}` and `Location`, or a form's redirect to its page.
    private func enqueue(
        _ queue: QueueRequest, saying what: String?, bot: Bot, form: [String: String]?, _ request: Request, _ context: KilnRequestContext
    ) async throws -> Response {
        let outcome = try await store.enqueue(queue, now: clock.now)
        let number = outcome.integration.number
        let detail = [what, outcome.coalesced ? "joined the one queued" : nil].compactMap { $0 }
        try await audit(.queued, request, context, bot: bot.name, number: number, detail: detail.isEmpty ? nil : detail.joined(separator: ", "))
        let page = "/bots/\(bot.name)/integrations/\(number)"
        if form != nil { return SignInController.redirect(to: page) }
        var response = APIController.json(try API.encode(Queued(bot: bot.name, number: number, coalesced: outcome.coalesced)))
        response.status = .accepted
        response.headers[.location] = "/api" + page
        return response
    }

    /// Records what the request's token did in the audit trail.
    private func audit(
        _ action: AuditEvent.Action, _ request: Request, _ context: KilnRequestContext, bot: String, number: Int, detail: String? = nil
    ) async throws {
        try await store.recordAudit(
            AuditEvent(
                at: clock.now, action: action, token: context.access.tokenName, address: context.clientAddress(request), bot: bot,
                number: number, detail: detail))
    }

    /// The bot the request may act on, and its form when it came as one (its anti-forgery value
    /// checked).
    private func authorize(_ request: Request, _ context: KilnRequestContext) async throws -> (Bot, [String: String]?) {
        guard context.access.role != nil else {
            throw WebError.unauthorized("queueing and canceling need a member's token: Authorization: Bearer TOKEN, or sign in at /login")
        }
        let name = try context.parameters.require("bot")
        guard let bot = await bots().first(where: { $0.name == name }) else { throw WebError.notFound("bot '\(name)'") }
        guard context.access.mayAct(on: name, isPrivate: bot.visibility == .private) else {
            throw WebError.forbidden("this token (\(context.access.role?.rawValue ?? "")) may not queue or cancel integrations of '\(name)'")
        }
        guard FormBody.isForm(request) else {
            // A cookie alone never acts without a form's anti-forgery value.
            guard context.sessionTokenHash == nil else { throw WebError.forbidden("send the page's form, with its csrf field") }
            return (bot, nil)
        }
        let form = try await FormBody.read(request)
        if let hash = context.sessionTokenHash {
            guard let sent = form["csrf"], TokenSecret.same(sent, TokenSecret.formToken(forTokenHash: hash)) else {
                throw WebError.forbidden("the form's csrf field is missing or wrong: reload the page and try again")
            }
        }
        return (bot, form)
    }

    /// What a queue request asks for: the branch (nothing), a pull request, or a re-run.
    private struct Asked: Decodable {
        var pullRequest: Int?
        var rerun: Int?
        var only: Rerun.Scope

        private enum CodingKeys: String, CodingKey { case pullRequest, rerun, only }

        init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            pullRequest = try values.decodeIfPresent(Int.self, forKey: .pullRequest)
            rerun = try values.decodeIfPresent(Int.self, forKey: .rerun)
            only = try values.decodeIfPresent(Rerun.Scope.self, forKey: .only) ?? .all
        }

        init(_ request: Request, form: [String: String]?) async throws {
            if let form {
                pullRequest = form["pullRequest"].flatMap { Int($0) }
                rerun = form["rerun"].flatMap { Int($0) }
                only = form["only"].flatMap(Rerun.Scope.init(rawValue:)) ?? .all
                return
            }
            let body = try await request.body.collect(upTo: FormBody.limit)
            guard body.readableBytes > 0 else {
                (pullRequest, rerun, only) = (nil, nil, .all)
                return
            }
            do {
                self = try JSONDecoder().decode(Asked.self, from: Data(buffer: body))
            } catch {
                throw WebError.badRequest(
                    "the body must be JSON like {\"pullRequest\": 12}, {\"rerun\": 7}, {\"rerun\": 7, \"only\": \"failed\"}, or empty")
            }
            guard pullRequest == nil || rerun == nil else {
                throw WebError.badRequest("a re-run runs integration \(rerun ?? 0)'s own pull request: send \"rerun\" or \"pullRequest\", not both")
            }
        }
    }
}
