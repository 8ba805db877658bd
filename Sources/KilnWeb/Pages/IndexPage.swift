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
import KilnPresentation

// What the front page renders (Web/index.mustache). The rules of ViewModels.swift hold here.

struct BotRowView {
    var name: String
    var url: String
    var repository: String
    var branch: String
    var status: String
    var last: IntegrationSummaryView?
    var running: ActiveView?
    var queued: [ActiveView]
    var queuedCount: Int
    var isQueued: Bool

    init(_ overview: BotOverview, now: Date, bot: Bot? = nil) {
        name = overview.state.name
        url = "/bots/\(overview.state.name)"
        repository = overview.state.repository
        branch = overview.state.branch
        status = overview.status.rawValue
        last = overview.last.map { IntegrationSummaryView($0, now: now, bot: bot) }
        running = overview.running.first.map { ActiveView($0, now: now) }
        queued = overview.queued.map { ActiveView($0, now: now) }
        queuedCount = overview.queued.count
        isQueued = !overview.queued.isEmpty
    }
}

struct BrokenBotView {
    var name: String
    var file: String
    var problems: [String]
}

struct IndexPage {
    var title = "Kiln"
    var bots: [BotRowView]
    /// The hosts, when there is more than one or one is gone; empty otherwise.
    var hosts: [HostView]
    var hasHosts: Bool
    /// Hosts read different bot files.
    var botsDiffer: Bool
    var broken: [BrokenBotView]
    var hasBroken: Bool
    var hasBots: Bool
    /// The heads of the table's issue columns, one per kind always counted.
    var kindColumns = SummaryFigures.columnTitles
    var bigscreen: Bool
    /// Seconds between refreshes of the wall display; nil for the normal page.
    var refresh: Int?
    var generatedAt: String
    /// What this host says to everyone: bubblewrap cannot run here.
    var notice: String? = nil
}

/// A host in the front page's hosts section.
struct HostView {
    var name: String
    var version: String
    var busy: Int
    var executors: Int
    var lastHeard: String
    var ago: String
    var gone: Bool
    var differs: Bool

    init(_ host: HostRecord, now: Date, differs: Bool) {
        name = host.name
        version = host.version
        busy = host.busy
        executors = host.executors
        lastHeard = Formatting.iso(host.lastHeard)
        ago = Ago.text(host.lastHeard, now: now)
        gone = host.gone
        self.differs = differs
    }
}
