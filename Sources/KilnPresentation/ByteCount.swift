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

/// "3.2 MiB": a byte count as people read it.
public enum ByteCount {
    public static func text(_ bytes: Int) -> String {
        switch bytes {
        case ..<1024: "\(bytes) bytes"
        case ..<(1 << 20): String(format: "%.1f KiB", Double(bytes) / 1024)
        case ..<(1 << 30): String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
        default: String(format: "%.1f GiB", Double(bytes) / Double(1 << 30))
        }
    }
}
