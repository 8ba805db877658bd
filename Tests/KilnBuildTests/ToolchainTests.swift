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
import Testing

@Suite("Toolchain")
struct ToolchainTests {
    @Test("The Swift toolchain on the PATH is found and reports its version")
    func version() async throws {
        let version = try #require(await Toolchain.version(), "swift must be on the PATH")
        #expect(version.hasPrefix("Swift version 6"))
    }
}
