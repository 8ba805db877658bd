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
import KilnPresentation
import KilnStore

extension IntegrationSteps {
    /// After the checkout: a workspace without a `.build` starts from a snapshot of the same bot
    /// and cell when there is one (`WarmWorkspaces`); the log says where it came from. Then
    /// `.build` is made to hold where the build sees it (`Workspace.settleSeenPath`), and a cold
    /// one gets the toolchain's modules compiled ahead (`ModuleCacheTemplates`). Returns
    /// where it came from, for the store (`recordOrigin`); nil without warm workspaces. `wiped`:
    /// the checkout wiped it for the bot's `clean` schedule.
    func startWorkspace(wiped: Bool) async -> WorkspaceOrigin? {
        guard let warm else {
            await settleSeenPath()
            return nil
        }
        let origin = await warm.workspaces.start(workspace, cell: warm.cell, swiftVersion: warm.swiftVersion, wiped: wiped)
        await log.note("workspace: \(origin.sentence)")
        await settleSeenPath()
        // A workspace that starts cold (but where the bot turned the cache off) starts with the
        // toolchain's modules compiled ahead: only Kiln's own package's build ever makes them.
        if origin.origin == .cold, origin.reason != .cacheOff,
            workspace.confined, let sentence = await warm.workspaces.moduleCaches.fill(workspace, swiftVersion: await warm.swiftVersion())
        {
            await log.note("module caches: \(sentence)")
        }
        return origin
    }

    /// Records where the workspace came from, for its page; run beside the before triggers, which
    /// do not wait for it. Only a lost claim stops the integration.
    static func recordOrigin(_ origin: WorkspaceOrigin?, of claim: Claim, in warm: Warming?) async -> StoreError? {
        guard let origin, let warm else { return nil }
        do {
            try await warm.workspaces.catalog.setWorkspace(claim, origin: origin)
            return nil
        } catch {
            return error
        }
    }

    /// Says what a failure of `recordOrigin` means: a lost claim ends the integration here; any
    /// other leaves the workspace's origin off its page, and the server log says why.
    func recordedOrigin(_ failure: StoreError?) throws(Stop) {
        switch failure {
        case nil: return
        case .claimLost(_, let reason)?: throw .lost("this host no longer holds the integration (\(reason))")
        case let error?:
            context.logger.warning(
                "recording where a workspace came from failed: its page does not say", metadata: ["bot": "\(bot.name)", "error": "\(error)"])
        }
    }

    private func settleSeenPath() async {
        if let last = await workspace.settleSeenPath() {
            await log.note(
                "clang's module caches were made where the build saw the workspace at \(last): they are built again at \(workspace.seenAs)")
        }
    }
}
