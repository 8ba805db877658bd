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

/// What a host says of itself with each heartbeat.
public struct HostReport: Sendable, Hashable {
    /// The host's name among several (`host:` in kiln.yml).
    public var name: String
    public var version: String
    public var executors: Int
    /// Executors running an integration now.
    public var busy: Int
    /// A digest of the bot files this host has loaded: hosts that read different files differ.
    public var botsDigest: String
    /// How long the host may stay silent before it is taken as gone (`host-lease`).
    public var lease: Duration
    /// The toolchains it offers to matrix cells (`toolchains:` in kiln.yml, and `default`).
    public var toolchains: [String]
    /// Where it serves its workspace snapshots to other hosts (`http://ADDRESS:PORT`); nil when
    /// it serves none (`kiln run`).
    public var address: String?

    /// What `kiln run` reports while it integrates: only that the host is alive (a report with no
    /// executors leaves a server's figures for the host as they are).
    public static func foreground(name: String, lease: Duration) -> HostReport {
        HostReport(name: name, version: KilnVersion.current, executors: 0, busy: 0, botsDigest: "", lease: lease)
    }

    public init(
        name: String, version: String, executors: Int, busy: Int, botsDigest: String, lease: Duration,
        toolchains: [String] = [Matrix.defaultToolchain], address: String? = nil
    ) {
        self.toolchains = toolchains
        self.address = address
        self.name = name
        self.version = version
        self.executors = executors
        self.busy = busy
        self.botsDigest = botsDigest
        self.lease = lease
    }
}

/// A host as the store knows it: its last report, and when it was last heard on the database's clock.
public struct HostRecord: Sendable, Hashable {
    public var name: String
    public var version: String
    public var executors: Int
    public var busy: Int
    public var botsDigest: String
    /// When it first reported since it started.
    public var startedAt: Date
    public var lastHeard: Date
    /// Its lease in seconds.
    public var lease: Double
    /// Its lease ran out: other hosts take its integrations as lost.
    public var gone: Bool
    /// Where it serves other hosts (`HostReport.address`); nil until it listens.
    public var address: String? = nil

    public init(
        name: String, version: String, executors: Int, busy: Int, botsDigest: String, startedAt: Date, lastHeard: Date, lease: Double, gone: Bool
    ) {
        self.name = name
        self.version = version
        self.executors = executors
        self.busy = busy
        self.botsDigest = botsDigest
        self.startedAt = startedAt
        self.lastHeard = lastHeard
        self.lease = lease
        self.gone = gone
    }
}

extension [HostRecord] {
    /// The live hosts that read other bot files than most live hosts do (by `botsDigest`); a
    /// host that reported none (`kiln run`) is not judged.
    public var readingOtherBots: Set<String> {
        let live = filter { !$0.gone && !$0.botsDigest.isEmpty }
        let common = Dictionary(grouping: live, by: \.botsDigest).max { $0.value.count < $1.value.count }?.key
        return Set(live.filter { $0.botsDigest != common }.map(\.name))
    }
}

/// Kiln's version, as `kiln --version` and every host's report give it.
public enum KilnVersion {
    public static let current = "0.1.0"
}
