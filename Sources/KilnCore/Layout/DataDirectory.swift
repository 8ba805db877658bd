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

/// Every path under a data directory (the server file's `data:`), named in one place: no other
/// code builds a path below it.
///
/// ```
/// <data>/kiln.sqlite            the embedded store (SQLite)
/// <data>/mirrors/               bare mirrors, one per repository; known_hosts
/// <data>/workspaces/<bot>/      each bot's checkout, with its .build
/// <data>/workspaces/.<bot>.cleaned   when the bot's workspace was last wiped (`clean:`)
/// <data>/homes/<bot>/           HOME of the bot's processes
/// <data>/forks/workspaces/<bot>/, <data>/forks/homes/<bot>/
///                               the same for pull requests from forks
/// <data>/logs/<bot>/<n>.log     integration logs
/// <data>/snapshots/<bot>/<cell>.<sha256>.tar.zst, <cell>.json
///                               a warm `.build` packed, which new workspaces start from
/// <data>/module-caches/<toolchain>-<configuration>/
///                               the toolchain's modules compiled once, for new sandboxed workspaces
/// ```
///
/// A pull request from a fork is code nobody on the team vouches for. It never shares a workspace
/// or a HOME with the bot's other integrations, which get the bot's secrets: whatever it leaves
/// in its `.build`, its caches or its dotfiles stays with other forks' pull requests.
public struct DataDirectory: Sendable, Hashable {
    /// The data directory itself, absolute.
    public let path: String

    public init(_ path: String) {
        self.path = path
    }

    public var database: String { "\(path)/kiln.sqlite" }
    public var mirrors: String { "\(path)/mirrors" }
    public var workspaces: String { "\(path)/workspaces" }
    public var logs: String { "\(path)/logs" }
    /// The mirrors of the packages bots' packages depend on (inside `mirrors`, which sandboxed
    /// builds read).
    public var dependencyMirrors: String { "\(mirrors)/dependencies" }
    /// What each Swift toolchain's `swift --version` said, by binary (a cache).
    public var toolchainVersions: String { "\(path)/toolchain-versions.json" }
    /// Packed warm `.build`s (`WorkspaceSnapshot`), per bot and cell.
    public var snapshots: String { "\(path)/snapshots" }
    /// A snapshot's pack, named by its SHA-256: a reader that opens it gets that pack or none,
    /// however its host replaces the snapshot meanwhile. Its description is beside it
    /// (`snapshotManifest`).
    public func snapshot(of bot: String, cell: String, sha256: String) -> String { "\(snapshots)/\(bot)/\(cell).\(sha256).tar.zst" }
    public func snapshotManifest(of bot: String, cell: String) -> String { "\(snapshots)/\(bot)/\(cell).json" }
    /// The module caches Kiln compiled from its own probe package, per toolchain and configuration
    /// (`ModuleCacheTemplates`), which a new sandboxed workspace starts with.
    public var moduleCaches: String { "\(path)/module-caches" }

    /// Where a sandboxed integration's processes see its workspace, whichever of the bot's
    /// workspaces it is and whichever host it runs on: in the sandbox's private /tmp, at a path
    /// of the bot's name only. What `.build` records of its paths (the build database, clang's
    /// module caches) then holds in a copy of it, so that a new workspace seeded from a snapshot
    /// builds warm.
    public static func confinedWorkspace(of bot: String) -> String { "/tmp/kiln/workspace/\(bot)" }

    /// Where a sandboxed build sees its Swift module cache (`-module-cache-path`): one path for
    /// every bot, so that the toolchain's modules compiled once (`moduleCaches`) hold in any
    /// workspace (clang refuses a module cache made at another path).
    public static let confinedModuleCache = "/tmp/kiln/module-cache"

    /// Held (flock) by the `kiln serve` that uses this directory; says which one it is.
    public var serveLock: String { "\(path)/serve.lock" }

    /// Where the `kiln serve` of this directory takes `kiln trigger`'s requests (a Unix socket).
    public var triggerSocket: String { "\(path)/serve.sock" }

    /// The bot's checkout; with `fork`, the one for pull requests from forks; with a `slot` above
    /// 0, one where a bisection integrates a commit, or a matrix runs a cell, beside the bot's
    /// own (slot 0).
    public func workspace(of bot: String, fork: Bool = false, slot: Int = 0) -> String {
        slot == 0 ? "\(workspaceRoot(fork: fork))/\(bot)" : "\(bisectRoot(of: bot, fork: fork))/\(slot)"
    }
    /// Its modification time is when the bot's workspace was last wiped.
    public func cleanMarker(of bot: String, fork: Bool = false, slot: Int = 0) -> String {
        slot == 0 ? "\(workspaceRoot(fork: fork))/.\(bot).cleaned" : "\(bisectRoot(of: bot, fork: fork))/.\(slot).cleaned"
    }
    /// HOME of the bot's processes; with `fork`, of its integrations of pull requests from forks.
    public func home(of bot: String, fork: Bool = false) -> String { "\(fork ? "\(path)/forks" : path)/homes/\(bot)" }
    private func workspaceRoot(fork: Bool) -> String { fork ? "\(path)/forks/workspaces" : workspaces }
    /// A fork's other slots (its matrix's cells) are apart from the branch's too: what its code
    /// leaves in a workspace must never be built on by an integration that has secrets.
    private func bisectRoot(of bot: String, fork: Bool) -> String { "\(fork ? "\(path)/forks" : path)/bisect/\(bot)" }
    public func log(of bot: String, number: Int) -> String { "\(logs)/\(bot)/\(number).log" }
    /// Where `swift test` writes Swift Testing's event stream while an integration runs: in the
    /// HOME of its processes, which they may write under the bubblewrap sandbox too.
    public func testEvents(of bot: String, fork: Bool = false, slot: Int = 0) -> String {
        "\(home(of: bot, fork: fork))/.kiln-test-events\(slot == 0 ? "" : "-\(slot)").jsonl"
    }
}

extension DataDirectory {
    /// The mark every process of a bot's integrations carries in its environment (`KILN_MARK`):
    /// this data directory and the bot, so that two servers on one machine never mix up each
    /// other's processes when ending what an integration left behind. A bot runs one integration
    /// at a time in each of its workspaces, so the mark names the bot and the workspace's `slot`;
    /// it stays the same from one integration to the next, as SwiftPM's environment must for warm
    /// builds to stay fast.
    public func processMark(bot: String, slot: Int = 0) -> String {
        slot == 0 ? "\(path):\(bot)" : "\(path):\(bot)#\(slot)"
    }
}
