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

/// A packed copy of a warm workspace's `.build`, made after a successful integration of a bot's
/// branch, from which a new workspace of the same bot and cell starts (`cache`, on by default):
/// on the host that made it, or on another host that fetched it. The pack is a zstd-compressed
/// tar of `.build`; this is what is known of it, kept beside it and in the store.
public struct WorkspaceSnapshot: Sendable, Hashable, Codable {
    public var bot: String
    /// `SnapshotKey.cell`: the matrix cell's name, or `branch` for a bot without a matrix.
    public var cell: String
    /// The host that made it (`host:` in kiln.yml).
    public var host: String
    /// The integration it was made after, and its commit.
    public var number: Int
    public var commit: String
    /// The first line of the compiler's `swift --version`: another toolchain's `.build` is refused.
    public var swiftVersion: String
    /// Where the build's processes saw the workspace: what `.build` records of its paths holds
    /// only there (a sandboxed workspace is seen at the same path on every host).
    public var seenAs: String
    /// The pack's size and SHA-256 (hex): a pack that does not match is refused.
    public var bytes: Int
    public var sha256: String
    public var createdAt: Date

    public init(
        bot: String, cell: String, host: String, number: Int, commit: String, swiftVersion: String, seenAs: String, bytes: Int, sha256: String,
        createdAt: Date
    ) {
        self.bot = bot
        self.cell = cell
        self.host = host
        self.number = number
        self.commit = commit
        self.swiftVersion = swiftVersion
        self.seenAs = seenAs
        self.bytes = bytes
        self.sha256 = sha256
        self.createdAt = createdAt
    }

    /// The header in which a host shows another the secret the hosts share through the store,
    /// to fetch a snapshot (`GET /hosts/snapshots/…`).
    public static let secretHeader = "X-Kiln-Host-Secret"

    /// The cell a bot's integration or cell builds in, as snapshots are keyed: the cell's name
    /// (toolchain, configuration and sanitizer), or `branch` for a bot without a matrix.
    public static func cell(_ cell: Cell?) -> String { cell?.name ?? "branch" }
}

/// Where an integration's workspace came from: `workspace` in its JSON, a line of its log and
/// page.
public struct WorkspaceOrigin: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The workspace was there, warm from the bot's earlier integrations.
        case warm
        /// A new workspace, started from this host's snapshot.
        case copy
        /// A new workspace, started from a snapshot fetched from another host.
        case snapshot
        /// Built from nothing: `reason` says why.
        case cold
    }

    public var origin: Kind
    /// The snapshot it started from (`copy`, `snapshot`).
    public var snapshot: Source?
    /// The snapshot's packed size.
    public var bytes: Int?
    /// Fetching, checking and unpacking it.
    public var seconds: Double?
    /// Why a new workspace started cold: no snapshot for its cell, `cache: none`, a snapshot
    /// refused and why.
    public var reason: ColdReason?

    /// Why a workspace started cold, as data (KilnPresentation says it).
    public enum ColdReason: Sendable, Hashable, Codable {
        /// The bot's `clean` schedule (`clean`: its value) wiped the workspace.
        case wiped(clean: String)
        /// The bot has `cache: none`.
        case cacheOff
        /// No host has a snapshot of this cell yet.
        case noSnapshot
        /// Every snapshot there was could not be used.
        case refused([Refusal])
        /// Written as a sentence by a Kiln from before reasons were data.
        case recorded(String)
    }

    /// A snapshot that could not be used, and why.
    public struct Refusal: Sendable, Hashable, Codable {
        /// The host that made it; nil for this host's own.
        public var host: String?
        public var number: Int
        /// It was made with another toolchain (this one, by `swift --version`).
        public var toolchain: String?
        /// Why it was refused (the snapshot's or the transfer's error), when not for its toolchain.
        public var error: String?

        public init(host: String?, number: Int, toolchain: String? = nil, error: String? = nil) {
            self.host = host
            self.number = number
            self.toolchain = toolchain
            self.error = error
        }
    }

    /// Whose snapshot, of which integration.
    public struct Source: Sendable, Hashable, Codable {
        public var host: String
        public var number: Int
        public var commit: String

        public init(host: String, number: Int, commit: String) {
            self.host = host
            self.number = number
            self.commit = commit
        }
    }

    public init(origin: Kind, snapshot: Source? = nil, bytes: Int? = nil, seconds: Double? = nil, reason: ColdReason? = nil) {
        self.origin = origin
        self.snapshot = snapshot
        self.bytes = bytes
        self.seconds = seconds
        self.reason = reason
    }

    public static let warm = WorkspaceOrigin(origin: .warm)

    public static func cold(_ reason: ColdReason) -> WorkspaceOrigin { WorkspaceOrigin(origin: .cold, reason: reason) }

    private enum CodingKeys: String, CodingKey { case origin, snapshot, bytes, seconds, reason }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        origin = try values.decode(Kind.self, forKey: .origin)
        snapshot = try values.decodeIfPresent(Source.self, forKey: .snapshot)
        bytes = try values.decodeIfPresent(Int.self, forKey: .bytes)
        seconds = try values.decodeIfPresent(Double.self, forKey: .seconds)
        // An older Kiln stored the reason as its sentence.
        if let text = try? values.decodeIfPresent(String.self, forKey: .reason) {
            reason = .recorded(text)
        } else {
            reason = try values.decodeIfPresent(ColdReason.self, forKey: .reason)
        }
    }

    /// Started from `snapshot`, made by `host` (this one: a copy).
    public static func seeded(from snapshot: WorkspaceSnapshot, here: Bool, seconds: Double) -> WorkspaceOrigin {
        WorkspaceOrigin(
            origin: here ? .copy : .snapshot, snapshot: Source(host: snapshot.host, number: snapshot.number, commit: snapshot.commit),
            bytes: snapshot.bytes, seconds: seconds)
    }
}
