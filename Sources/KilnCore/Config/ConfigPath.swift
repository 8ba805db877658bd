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

/// Where a value sits in a configuration document: `schedule.poll`, `triggers[1].on`.
struct ConfigPath: Sendable, Hashable, CustomStringConvertible {
    private var text: String
    /// The last key, for messages (`'poll' must be …`).
    private(set) var lastKey: String

    static let root = ConfigPath(text: "", lastKey: "")

    func key(_ key: String) -> ConfigPath {
        ConfigPath(text: text.isEmpty ? key : "\(text).\(key)", lastKey: key)
    }

    /// Elements of a list are named after the list (`'on' value 'x' …`), indexed in the path.
    func index(_ index: Int) -> ConfigPath {
        ConfigPath(text: "\(text)[\(index)]", lastKey: lastKey)
    }

    var description: String { text }
}
