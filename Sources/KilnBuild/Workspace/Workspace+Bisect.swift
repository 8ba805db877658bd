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

extension Workspace {
    /// Copies this workspace (its checkout and warm `.build`) with its clean marker to the bot's
    /// bisect workspaces `1..<slots` that do not exist yet, so that the first round of a
    /// bisection that integrates several commits at once builds them incrementally. A sandboxed
    /// copy is seen at the same path as this workspace (`seenAs`), so all of `.build` holds there; an
    /// unsandboxed one is seen at its own path, where all but clang's module caches (which name
    /// their path, and are left out) still hold (measured on a small package with a changed
    /// source: 9.6 s against 14.5 s cold; the more dependencies, the more a copy saves).
    /// Called while the integration still holds its bot, when nothing else writes this
    /// workspace. A copy that fails leaves nothing behind: that workspace then builds cold.
    public func seedBisectWorkspaces(_ slots: Int) async {
        guard slot == 0, !fromFork, exists else { return }
        for target in 1..<max(1, min(slots, Bisection.workspaces)) {
            let destination = layout.workspace(of: bot.name, slot: target)
            guard !FileManager.default.fileExists(atPath: destination) else { continue }
            let partial = destination + ".partial"
            // a leftover partial copy is replaced; the copy below reports its own failure
            try? FileManager.default.removeItem(atPath: partial)
            try? FileManager.default.createDirectory(
                atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            await log.header("copying this workspace to bisect workspace \(target), so that a bisection builds there warm")
            // Clang's module caches name the path they were built at: an unsandboxed copy, which
            // its processes see at its own path, builds its own (confined ones see this path).
            let copy = StepCommand(
                "/bin/sh",
                [
                    "-c", #"cp -a "$0" "$1" && { [ "$2" = keep ] || find "$1/.build" -type d -name ModuleCache -prune -exec rm -rf {} +; }"#,
                    directory, partial, confined ? "keep" : "drop",
                ])
            // Kiln's own copy: none of the bot's variables, secrets least of all.
            let end = try? await ProcessRunner.run(
                copy, in: layout.path, environment: ["PATH": "/usr/bin:/bin"], log: log, deadline: deadline, mark: mark)
            // a copy that cannot be moved into place is no copy: the workspace starts cold, as it says
            guard end?.succeeded == true, (try? FileManager.default.moveItem(atPath: partial, toPath: destination)) != nil else {
                try? FileManager.default.removeItem(atPath: partial)
                await log.note("bisect workspace \(target) was not copied (\(end?.description ?? "cp could not start")): it builds cold")
                continue
            }
            let marker = layout.cleanMarker(of: bot.name, slot: 0)
            if let cleaned = try? FileManager.default.attributesOfItem(atPath: marker)[.modificationDate] as? Date {
                let copied = layout.cleanMarker(of: bot.name, slot: target)
                if FileManager.default.createFile(atPath: copied, contents: nil) {
                    // a clean marker without its date only makes the next clean come sooner
                    try? FileManager.default.setAttributes([.modificationDate: cleaned], ofItemAtPath: copied)
                }
            }
        }
    }
}
