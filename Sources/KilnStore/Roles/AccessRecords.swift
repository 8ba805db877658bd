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

/// Who may see and do what: the private bots, and the access tokens (`kiln token`), kept only as
/// hashes.
///
/// Threading and errors as `Store` says.
public protocol AccessRecords: Sendable {
    /// Every bot the store knows, and whether it is private (its file says `visibility:
    /// private`, or, broken, may).
    func botVisibility() async throws(StoreError) -> [String: Bool]

    /// Records a new token by the hash of its value; fails if the name is taken.
    func addToken(_ token: AccessToken, hash: String) async throws(StoreError)

    /// Every token, by name (never a value: the store has none).
    func tokens() async throws(StoreError) -> [AccessToken]

    /// Every token with the hash of its value.
    func tokenHashes() async throws(StoreError) -> [(hash: String, token: AccessToken)]

    /// The token whose value hashes to `hash`, with its stored hash; nil when there is none.
    /// One indexed read: what every request that presents a token costs.
    func token(hash: String) async throws(StoreError) -> (hash: String, token: AccessToken)?

    /// Removes the token `name`; false when there is none. Each host refuses it once it hears the change (`accessEpoch`).
    @discardableResult
    func revokeToken(named name: String) async throws(StoreError) -> Bool

    /// Records that the token `name` was used at `now`.
    func tokenUsed(named name: String, at now: Date) async throws(StoreError)

    /// A number that moves whenever a token may have been made or revoked, on this host or any
    /// other, before the change is visible to any later request: tokens read while it held one
    /// value may be used while it holds it. Nil while this process cannot hear changes (its
    /// database connection is down): then nothing read earlier may be trusted.
    var accessEpoch: Int? { get }
}
