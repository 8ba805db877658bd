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

/// A host's hold on one running integration: the integration as claimed, and the token that every
/// later write about it must carry.
///
/// When a host is taken as gone, another host ends its integrations and their tokens stop
/// counting: a write that still carries one (a host that was only cut off, coming back) is
/// refused with `claimLost`, and the host stops that work.
@dynamicMemberLookup
public struct Claim: Sendable, Hashable {
    public var integration: Integration
    public var token: String

    public init(integration: Integration, token: String) {
        self.integration = integration
        self.token = token
    }

    public subscript<T>(dynamicMember keyPath: KeyPath<Integration, T>) -> T {
        integration[keyPath: keyPath]
    }
}

/// Where an integration's log goes as it is written: a file on SQLite, the database on PostgreSQL.
///
/// `write` never waits: a sink that talks to a server buffers, and sends in the background in
/// order. `close` returns once everything written has arrived (or can never arrive).
public protocol LogSink: Sendable {
    func write(_ bytes: [UInt8])
    func close() async
}
