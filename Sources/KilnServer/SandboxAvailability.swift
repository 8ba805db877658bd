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

import KilnBuild
import KilnCore

/// Whether builds can be confined here, as probed when Kiln starts, and what becomes of the bots
/// that want the sandbox (every bot without `sandbox: none`) when they cannot be: nothing
/// silently runs unconfined unless `kiln.yml` says `sandbox-fallback: none`.
public struct SandboxAvailability: Sendable, Hashable {
    /// Why bubblewrap cannot run; nil when it can.
    public var problem: String?
    /// `sandbox-fallback: none`: run those bots unconfined.
    public var fallback: Bool

    public init(problem: String? = nil, fallback: Bool = false) {
        self.problem = problem
        self.fallback = fallback
    }

    /// Probes bubblewrap (a few milliseconds).
    public static func probe(_ config: ServerConfig) async -> SandboxAvailability {
        SandboxAvailability(problem: await SandboxProbe.problem(), fallback: config.sandboxFallback == Sandbox.none)
    }

    /// The one sentence Kiln says at start, on the front page and in `kiln status`; nil when
    /// bubblewrap runs.
    public var sentence: String? {
        guard let problem else { return nil }
        if fallback {
            return "bubblewrap cannot run here (\(problem)): bots run unconfined, as sandbox-fallback: none in kiln.yml says; "
                + "install bubblewrap where user namespaces are allowed to confine them"
        }
        return "bubblewrap cannot run here (\(problem)), so bots without sandbox: none are not run: install bubblewrap "
            + "(apt-get install bubblewrap) where user namespaces are allowed, or set sandbox-fallback: none in kiln.yml to run them unconfined"
    }

    /// `catalog` as this host can run it: bots that want the sandbox run unconfined (fallback)
    /// or become broken files whose problem is the sentence.
    public func apply(to catalog: BotCatalog) -> BotCatalog {
        guard let sentence else { return catalog }
        var result = catalog
        // Without bubblewrap there is no network namespace either: `network: none` never falls back.
        let refused = { (bot: Bot) in bot.sandbox == .bubblewrap && (!fallback || bot.network == .none) }
        if fallback {
            for index in result.bots.indices where result.bots[index].bot.sandbox == .bubblewrap && result.bots[index].bot.network != .none {
                result.bots[index].bot.sandbox = .none
            }
        }
        result.bots = result.bots.filter { !refused($0.bot) }
        result.broken += catalog.bots.filter { refused($0.bot) }.map { entry in
            BotCatalog.BrokenFile(
                file: entry.file, name: entry.bot.name,
                problems: [ConfigDiagnostic(file: entry.file, line: 1, column: 1, keyPath: "sandbox", message: "not runnable: \(sentence)")],
                mayBePrivate: entry.bot.visibility == .private)
        }
        return result
    }
}
