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

/// `GET /audit`: the audit trail, newest first, for admins' tokens (others: 403; nobody: the
/// sign-in page). Events of a private bot the admin's token may not see are left out.
struct AuditController {
    let store: any AuditTrail
    let gate: AccessGate
    let assets: WebAssets

    /// The most events the page shows.
    static let limit = 500

    struct Page {
        var title = "Audit trail · Kiln"
        var limit = AuditController.limit
        var events: [Row]
        /// Stored, not computed: the templates see stored properties only.
        var hasEvents: Bool

        init(events: [Row]) {
            self.events = events
            hasEvents = !events.isEmpty
        }
    }

    struct Row {
        var time: String
        var action: String
        var tone: String
        var token: String
        var address: String
        var integration: String
        var url: String?
        var detail: String
    }

    func addRoutes(to router: Router<KilnRequestContext>) {
        router.get("audit") { _, context in
            guard context.access.role == .admin else {
                guard context.access.role == nil else { throw WebError.forbidden("the audit trail is for admins' tokens") }
                throw WebError.signIn
            }
            let visibility = try await gate.botVisibility()
            let events = try await store.auditEvents(since: nil, limit: Self.limit).reversed().filter { event in
                guard let bot = event.bot else { return true }
                return context.access.maySee(bot, isPrivate: visibility[bot] ?? true)
            }
            return PageChrome.page(ByteBuffer(string: assets.render(Page(events: events.map(Self.row)), "audit")), for: context)
        }
    }

    static func row(_ event: AuditEvent) -> Row {
        let integration = event.bot.map { bot in event.number.map { "\(bot) #\($0)" } ?? bot } ?? ""
        let url = event.bot.flatMap { bot in event.number.map { "/bots/\(bot)/integrations/\($0)" } }
        let tone =
            switch event.action {
            case .signInFailed, .throttled: "bad"
            case .tokenRevoked, .canceled: "warn"
            default: ""
            }
        return Row(
            time: event.at.formatted(.iso8601), action: event.action.rawValue, tone: tone, token: event.token ?? "",
            address: event.address ?? "command line", integration: integration, url: url, detail: event.detail ?? "")
    }
}
