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
import KilnCore
import KilnStore
import Logging

/// What the forge said of the authors of pull requests waiting for approval: asked once per
/// integration and commit; asked again after `retry` when the forge could not say.
struct MembershipAnswers: Sendable {
    /// Answered "not a member" (kept until the integration stops waiting), or when to ask again.
    private var asked: [String: ContinuousClock.Instant?] = [:]

    static let retry = Duration.seconds(30)

    func due(_ key: String, now: ContinuousClock.Instant) -> Bool {
        guard let entry = asked[key] else { return true }
        return entry.map { now >= $0 } ?? false
    }

    mutating func answered(_ key: String) { asked[key] = .some(nil) }
    mutating func unanswered(_ key: String, now: ContinuousClock.Instant) { asked[key] = now + Self.retry }
    /// Forgets what no longer waits.
    mutating func keep(only keys: Set<String>) { asked = asked.filter { keys.contains($0.key) } }
}

extension Scheduler {
    /// Lets the pull requests waiting for approval whose authors the forge counts as members of
    /// the repository run (`Forge.memberRequest`), each approval in the audit trail. One host
    /// asks: the one that runs polls and schedules.
    func checkMembers() async {
        // Every tick, on the poll loop's turn: without such a bot, a look at the catalog and nothing more.
        let bots = await registry.catalog.bots.compactMap { $0.bot.pullRequests.approval && $0.bot.forge != nil ? $0.bot : nil }
        guard !bots.isEmpty, await holdsScheduleLease() else { return }
        let store = store
        guard
            let waiting = await logger.bestEffort(
                "reading the integrations awaiting approval", loses: "they are looked at again at the next tick",
                { () async throws(StoreError) in try await store.awaitingApproval(bots: bots.map(\.name)) })
        else { return }
        let keys = waiting.map { "\($0.id) \($0.commit ?? "")" }
        membership.keep(only: Set(keys))
        for (integration, key) in zip(waiting, keys) where membership.due(key, now: clock.monotonic.now) {
            guard let pull = integration.pullRequest, let bot = bots.first(where: { $0.name == integration.bot }), let forge = bot.forge else {
                continue
            }
            guard let token = SecretFile.read(forge.tokenFile) else {
                logger.warning("cannot read the forge token file to ask who is a member", metadata: ["file": "\(forge.tokenFile)"])
                membership.unanswered(key, now: clock.monotonic.now)
                continue
            }
            let project = ForgeSettings.project(of: bot.repository.url)
            let member = await ForgeClient().isMember(pull.author, of: project, forge: forge, token: String(decoding: token, as: UTF8.self))
            switch member {
            case nil: membership.unanswered(key, now: clock.monotonic.now)
            case false?: membership.answered(key)
            case true?:
                membership.answered(key)
                await approve(integration, by: "\(pull.author) (a member, as \(forge.kind) says)")
            }
        }
    }

    private func approve(_ integration: Integration, by approver: String) async {
        do {
            guard try await store.approve(bot: integration.bot, number: integration.number, by: approver, now: clock.now) != nil else { return }
            logger.info("approved", metadata: ["bot": "\(integration.bot)", "number": "\(integration.number)", "by": "\(approver)"])
            try await store.recordAudit(
                AuditEvent(at: clock.now, action: .approved, bot: integration.bot, number: integration.number, detail: "by \(approver)"))
        } catch {
            logger.error("cannot approve", metadata: ["bot": "\(integration.bot)", "number": "\(integration.number)", "error": "\(error)"])
        }
    }
}
