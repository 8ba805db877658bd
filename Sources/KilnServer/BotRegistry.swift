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

/// The bots the server knows, as last loaded from the bots directory.
///
/// The catalog is replaced whole on every load, so readers always see one consistent set, and
/// recorded in the store, so that `kiln status` and the pages show the bots and their problems.
public actor BotRegistry {
    public let directory: String
    private let store: (any IntegrationQueue)?
    /// Whether bubblewrap runs here: bots that want it are run, run unconfined or shown broken.
    public let sandbox: SandboxAvailability
    private let logger: Logger
    private let clock: WallClock
    public private(set) var catalog = BotCatalog() {
        didSet { forgeBots = catalog.bots.map(\.bot).filter { $0.forge != nil } }
    }
    /// The bots that post commit statuses to a forge: what the status publisher looks at on
    /// every change of the store, on every host.
    public private(set) var forgeBots: [Bot] = []
    /// A digest of the bot files as last loaded (names and contents): hosts that show different
    /// digests read different bot files.
    public private(set) var digest = ""

    public init(
        directory: String, store: (any IntegrationQueue)? = nil, sandbox: SandboxAvailability = SandboxAvailability(), logger: Logger,
        clock: WallClock = .system
    ) {
        self.directory = directory
        self.clock = clock
        self.store = store
        self.sandbox = sandbox
        self.logger = logger
    }

    /// Reads every bot file again; a broken file is recorded with its problems, never thrown.
    @discardableResult
    public func reload() async throws(ConfigError) -> BotCatalog {
        let loaded = sandbox.apply(to: try BotCatalog.load(directory: directory))
        for entry in loaded.bots {
            logger.info("bot loaded", metadata: ["bot": "\(entry.bot.name)", "file": "\(entry.file)"])
        }
        for broken in loaded.broken {
            logger.error(
                "bot broken", metadata: ["bot": "\(broken.name)", "file": "\(broken.file)", "problems": "\(broken.problems.map(\.description))"])
        }
        catalog = loaded
        digest = Self.digest(of: (try? BotCatalog.files(in: directory)) ?? [])
        do {
            try await store?.syncBots(loaded.states, now: clock.now)
        } catch {
            logger.error("cannot record the loaded bots", metadata: ["error": "\(error)"])
        }
        return loaded
    }

    /// FNV-1a (64 bits) over each file's name and contents, in name order.
    static func digest(of files: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for file in files {
            let bytes = Array((file as NSString).lastPathComponent.utf8) + [0] + Array((FileManager.default.contents(atPath: file) ?? Data())) + [0]
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        return String(hash, radix: 16)
    }
}
