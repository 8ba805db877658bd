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

import KilnGit
import Testing

@Suite("libgit2")
struct GitLibraryTests {
    @Test("libgit2 is linked and initialised (Debian 12 ships 1.5)")
    func version() {
        let parts = GitLibrary.version.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count == 3)
        #expect(parts.first == 1)
    }
}
