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

import KilnCore
import KilnStore

extension IntegrationRecords {
    /// The bot named in a request's path, or 404.
    func overview(of name: String) async throws -> BotOverview {
        guard Bot.isValidName(name), let overview = try await botOverviews().first(where: { $0.state.name == name }) else {
            throw WebError.notFound("bot '\(name)'")
        }
        return overview
    }
}
