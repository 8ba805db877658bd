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

/// Integrations' logs and assets: where each is kept on this host, reading them, and keeping an
/// asset for a claimed integration.
///
/// Threading and errors as `Store` says.
public protocol LogsAndAssets: Sendable {
    /// Where this host keeps the log file of an integration: on SQLite the log itself, on
    /// PostgreSQL a local copy (what scripts read as `KILN_LOG`); nil when there is none.
    func logLocation(bot: String, number: Int) -> String?

    /// Where the log of a claimed integration goes besides its file, as it is written: nil when
    /// the file is the log. Writes after the claim was lost are dropped.
    func logSink(for claim: Claim) -> (any LogSink)?

    /// Up to `limit` bytes of an integration's log from byte `offset`; nil when it has no log.
    func readLog(bot: String, number: Int, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]?

    /// The size of an integration's log in bytes; nil when it has no log.
    func logSize(bot: String, number: Int) async throws(StoreError) -> Int?

    /// Keeps `asset`, whose bytes are the file at `path`, with the integration `claim` holds,
    /// replacing one of the same name; refused once the claim is lost.
    func storeAsset(_ asset: Asset, from path: String, for claim: Claim) async throws(StoreError)

    /// An integration's asset by name; nil when it has none of that name (or it expired).
    func asset(bot: String, number: Int, name: String) async throws(StoreError) -> Asset?

    /// Up to `limit` bytes of an asset from byte `offset`.
    func readAsset(bot: String, number: Int, name: String, from offset: Int, limit: Int) async throws(StoreError) -> [UInt8]

    /// Where this host keeps an asset's bytes as a file (SQLite), for streaming it; nil where
    /// they are in the database.
    func assetLocation(bot: String, number: Int, name: String) -> String?

    /// The number of the bot's newest branch integration with a result in `results` that kept
    /// an asset named `name`.
    func latestAsset(bot: String, name: String, results: Set<IntegrationResult>) async throws(StoreError) -> Int?
}
