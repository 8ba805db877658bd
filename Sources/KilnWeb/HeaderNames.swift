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

import HTTPTypes
import KilnCore

/// Header names HTTPTypes does not predefine (forges name their own: `Forge.eventHeaders`).
extension HTTPField.Name {
    static let frameOptions = named("X-Frame-Options")
    static let referrerPolicy = named("Referrer-Policy")
    /// The client's address as a proxy on this machine saw it (`ClientAddress`).
    static let forwardedFor = named("X-Forwarded-For")
    /// The secret hosts show each other to fetch a workspace snapshot (`SnapshotController`).
    static let hostSecret = named(WorkspaceSnapshot.secretHeader)

    /// A name written here, which is a valid token by construction.
    private static func named(_ name: String) -> Self {
        guard let field = Self(name) else { preconditionFailure("'\(name)' is not a valid header name") }
        return field
    }
}
