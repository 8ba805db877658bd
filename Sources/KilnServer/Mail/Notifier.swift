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
import KilnMail
import KilnPresentation
import KilnStore

/// Composes the mail of email triggers and puts it in the outbox; `Mailer` delivers it.
///
/// - After each integration (any process's: it reads the store's completed integrations not yet
///   notified), `new-issues` mails go to the committers who introduced new issues, each listing
///   only their own, and `report` mails with `every: integration` or `every: change` go to `to`
///   (of the branch's integrations only: a pull request's are not the branch's news).
/// - At the server's `reports` times, `every: daily` and `every: weekly` digests cover the period
///   just ended, one mail per set of recipients with every bot that reports to them.
///
/// Every mail has a dedupe key, so composing twice (a restart between queueing and recording)
/// never sends twice.
public struct Notifier: Sendable {
    public let store: any MailOutbox & Outboxes & IntegrationRecords
    public let templates: MailTemplates
    public let from: EmailAddress
    /// Links in mails start with this (the server's `public-url`).
    public let publicURL: String
    public let reports: ReportTimes
    public let timeZone: TimeZone

    public init(
        store: any MailOutbox & Outboxes & IntegrationRecords, templates: MailTemplates, from: EmailAddress, publicURL: String,
        reports: ReportTimes = ReportTimes(),
        timeZone: TimeZone = .current
    ) {
        self.store = store
        self.templates = templates
        self.from = from
        self.publicURL = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        self.reports = reports
        self.timeZone = timeZone
    }

    // MARK: After integrations

    /// Composes the mail of integrations completed since the last call; returns how many mails were queued.
    @discardableResult
    public func notifyCompleted(bots: [Bot], now: Date) async throws(StoreError) -> Int {
        var queued = 0
        let byName = Dictionary(bots.map { ($0.name, $0) }) { a, _ in a }
        // Integrations whose bisection is still looking for the culprit: their mail waits.
        var waiting: Set<Int64> = []
        // Integrations composed in this round: one whose row another host was marking at once
        // stays unmarked here (`markNotified` skips it) and is not composed again in this round.
        var handled: Set<Int64> = []
        while true {
            let integrations = try await store.integrationsToNotify(limit: 50 + waiting.count + handled.count).filter {
                !waiting.contains($0.id) && !handled.contains($0.id)
            }
            guard !integrations.isEmpty else { return queued }
            var notified: [Int64] = []
            for integration in integrations {
                if let bot = byName[integration.bot] {
                    let bisection = try await store.bisection(of: integration.id)
                    if let bisection, bisection.state == .running, now < bisection.createdAt.addingTimeInterval(bot.bisect.wait.seconds) {
                        waiting.insert(integration.id)
                        continue
                    }
                    for mail in try await mails(after: integration, of: bot, bisection: bisection, now: now) {
                        if try await store.queueMail(mail, now: now) { queued += 1 }
                    }
                }
                notified.append(integration.id)
            }
            try await store.markNotified(notified, now: now)
            handled.formUnion(notified)
        }
    }

    func mails(after integration: Integration, of bot: Bot, bisection: Bisection? = nil, now: Date) async throws(StoreError) -> [OutgoingMail] {
        let triggers = bot.triggers.enumerated().compactMap { index, trigger -> (Int, EmailTrigger)? in
            if case .email(let email) = trigger { return (index, email) }
            return nil
        }
        guard !triggers.isEmpty, let result = integration.result, result != .canceled,
            let detail = try await store.integration(bot: integration.bot, number: integration.number)
        else { return [] }
        var mails: [OutgoingMail] = []
        for (index, trigger) in triggers {
            // Reports are about the branch; a pull request's integration mails only those who
            // introduced its new issues.
            if case .report = trigger.kind, integration.pullRequest != nil { continue }
            switch trigger.kind {
            case .newIssues(let selection):
                mails += newIssueMails(
                    detail, trigger: trigger, selection: selection, bisection: bisection, key: "new-issues:\(integration.id):\(index)", now: now)
            case .report(.integration):
                mails += reportMail(detail, trigger: trigger, headline: nil, key: "report:\(integration.id):\(index)", now: now)
            case .report(.change):
                let previous = try await store.predecessor(.ended, bot: integration.bot, before: integration.number)
                let wasGood = previous?.result?.isPassing ?? true
                guard wasGood != result.isPassing else { continue }
                mails += reportMail(
                    detail, trigger: trigger, headline: wasGood ? "broken" : "fixed", key: "report:\(integration.id):\(index)", now: now)
            case .report(.daily), .report(.weekly):
                continue
            }
        }
        return mails
    }

    private func newIssueMails(
        _ detail: IntegrationDetail, trigger: EmailTrigger, selection: IssueSelection, bisection: Bisection?, key: String, now: Date
    ) -> [OutgoingMail] {
        let integration = detail.integration
        let introduced = detail.issues.filter { $0.status == .new && selection.contains($0) }
        var byCommitter: [String: (name: String, address: String, issues: [(IntegrationIssue, String)])] = [:]
        for issue in introduced {
            for committer in issue.introducedBy {
                let address = committer.email.lowercased()
                byCommitter[address, default: (committer.name, committer.email, [])].issues.append((issue, committer.commit))
            }
        }
        let cc = trigger.cc.filter(trigger.allows)
        return byCommitter.keys.sorted().compactMap { address in
            guard let entry = byCommitter[address], let recipient = EmailAddress(entry.address), trigger.allows(recipient) else { return nil }
            let view = NewIssuesMail(
                name: entry.name, bot: integration.bot, number: integration.number, result: integration.result?.rawValue ?? "",
                count: entry.issues.count, issuesText: CountText.of(entry.issues.count, "new issue"),
                pullRequest: integration.pullRequest.map { PullRequestLine(number: $0.number, title: $0.title) }, url: url(of: integration),
                issues: entry.issues.map { issue, commit in
                    IssueLine(
                        type: issue.kindLabel, location: IntegrationReport.location(issue), message: issue.message, commit: ShortHash.text(commit),
                        cells: issue.cellsText)
                }, bisection: bisection.map(Self.bisectionLine))
            let (text, html) = templates.render("new-issues", view)
            let subject =
                "[\(integration.bot)] #\(integration.number)\(integration.pullRequest.map { " (pull request #\($0.number))" } ?? ""): \(CountText.of(entry.issues.count, "new issue")) from your commits"
            let message = MailMessage(
                from: from, to: [EmailAddress(name: entry.name, address: entry.address)], cc: cc, subject: subject, text: text, html: html,
                listID: listID(integration.bot), date: now)
            return OutgoingMail(
                dedupeKey: key + ":" + address, bot: integration.bot, integrationId: integration.id, recipients: message.recipients, subject: subject,
                message: message.rendered())
        }
    }

    /// What a new-issue mail says of the bisection of its integration.
    static func bisectionLine(_ bisection: Bisection) -> String {
        let count = CountText.of(bisection.integrations.count, "integration")
        switch bisection.state {
        case .found:
            let culprit = bisection.culpritCommit.map { "\(ShortHash.text($0.sha)) (\($0.author))" } ?? "one commit"
            return "Kiln integrated the commits one by one (\(count)): the failure came with \(culprit)."
        case .failed:
            return
                "Kiln could not find the one commit that brought it (\(bisection.failure?.sentence ?? "no reason given")), so everyone who committed hears of it."
        case .running:
            return
                "Kiln is still integrating the commits one by one (\(count) so far) to find the one that brought it; this mail could not wait longer."
        }
    }

    private func reportMail(_ detail: IntegrationDetail, trigger: EmailTrigger, headline: String?, key: String, now: Date) -> [OutgoingMail] {
        let integration = detail.integration
        let to = trigger.to.filter(trigger.allows)
        guard !to.isEmpty else { return [] }
        let result = integration.result?.rawValue ?? ""
        let view = ReportMail(report: IntegrationReport(detail, now: now), headline: headline, url: url(of: integration))
        let (text, html) = templates.render("report", view)
        let subject = "[\(integration.bot)] #\(integration.number) \(headline.map { "\($0): " } ?? "")\(result)"
        let message = MailMessage(
            from: from, to: to, cc: trigger.cc.filter(trigger.allows), subject: subject, text: text, html: html, listID: listID(integration.bot),
            date: now)
        return [
            OutgoingMail(
                dedupeKey: key, bot: integration.bot, integrationId: integration.id, recipients: message.recipients, subject: subject,
                message: message.rendered())
        ]
    }

    // MARK: Helpers

    private func url(of integration: Integration) -> String {
        "\(publicURL)/bots/\(integration.bot)/integrations/\(integration.number)"
    }

    private func listID(_ bot: String) -> String {
        "\(bot).kiln.\(URLComponents(string: publicURL)?.host ?? "localhost")"
    }

    static func day(_ date: Date, _ timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0)
    }
}
