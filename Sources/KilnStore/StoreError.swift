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

/// A request that a running integration stop.
public struct CancelRequest: Sendable, Hashable {
    public var id: Int64
    /// The reason the integration ends with; nil when the claim was lost (`lost`).
    public var reason: IntegrationReason?
    /// The claim was lost (the store's words why): the integration has been ended by another
    /// host and this one's result will be refused, so it must not record one.
    public var lost: String?

    public init(id: Int64, reason: IntegrationReason) {
        self.id = id
        self.reason = reason
    }

    public init(id: Int64, lost: String) {
        self.id = id
        self.lost = lost
    }
}

/// Why the store could not do what was asked.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    /// A database server could not be reached or refused us (`url` has its password redacted).
    case unreachable(url: String, reason: String)
    /// A database server that answers but cannot carry what Kiln needs of it (`reason` says what).
    case unsuitable(url: String, reason: String)
    case query(what: String, reason: String)
    case notFound(what: String)
    /// A write about an integration whose claim no longer holds: another host took this one as
    /// gone and ended it.
    case claimLost(id: Int64, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open the database \(path): \(reason) (check that its directory exists and is writable)"
        case .unreachable(let url, let reason):
            "cannot use the database \(url): \(reason) (check that PostgreSQL runs there and that database.url names it)"
        case .unsuitable(let url, let reason): "cannot use the database \(url): \(reason)"
        case .query(let what, let reason): "\(what) failed: \(reason)"
        case .notFound(let what): "\(what) does not exist"
        case .claimLost(let id, let reason): "integration \(id) is no longer this host's: \(reason)"
        }
    }
}
