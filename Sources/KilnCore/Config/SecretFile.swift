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

/// A file holding one secret (a webhook secret, a password, a token).
public enum SecretFile {
    /// The file's contents without the trailing newline an editor adds; nil when it cannot be read
    /// or is empty.
    public static func read(_ path: String) -> [UInt8]? {
        guard var data = FileManager.default.contents(atPath: path) else { return nil }
        while let last = data.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { data.removeLast() }
        return data.isEmpty ? nil : Array(data)
    }
}
