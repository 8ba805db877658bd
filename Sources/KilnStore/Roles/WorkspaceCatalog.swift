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

/// Warm workspaces across hosts: where each integration's workspace came from, which host
/// holds a snapshot of which bot and cell (`WorkspaceSnapshot`) and where it serves them, and
/// the secret hosts show each other to fetch one.
///
/// Threading and errors as `Store` says.
public protocol WorkspaceCatalog: Sendable {
    /// Records where the workspace of the integration (or cell) `claim` holds came from.
    func setWorkspace(_ claim: Claim, origin: WorkspaceOrigin) async throws(StoreError)

    /// Records that its host now holds `snapshot`, in place of its earlier one of that bot and cell.
    func recordSnapshot(_ snapshot: WorkspaceSnapshot) async throws(StoreError)

    /// Forgets what `host` held of `bot` (of `cell` only, when given): dropped, or the bot is gone.
    func forgetSnapshots(bot: String, cell: String?, host: String) async throws(StoreError)

    /// The snapshots of `bot` in `cell` that live hosts other than `host` hold and serve (at
    /// their heartbeat's `address`), newest first.
    func snapshots(bot: String, cell: String, elsewhereThan host: String) async throws(StoreError) -> [(snapshot: WorkspaceSnapshot, address: String)]

    /// The secret hosts show each other to fetch snapshots: made once, by the first host that asks.
    func clusterSecret() async throws(StoreError) -> String
}
