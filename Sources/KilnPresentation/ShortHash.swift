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

/// "3f2a9c1d0b": a commit as people read it, the same length everywhere Kiln shows one.
public enum ShortHash {
    /// Ten hexadecimal digits: unique in any repository Kiln is likely to build, and short
    /// enough for a status line.
    public static let length = 10

    public static func text(_ sha: some StringProtocol) -> String {
        String(sha.prefix(length))
    }
}
