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
import Synchronization

/// Where this host serves other hosts (workspace snapshots), once it listens: its heartbeat
/// says it. `listen`'s address, or the host's name when it listens on every address.
public final class HostAddress: Sendable {
    public init() {}

    private let url = Mutex<String?>(nil)

    public var current: String? { url.withLock { $0 } }

    public func listening(on listen: ListenAddress, port: Int, host: String) {
        let name = ["0.0.0.0", "::", ""].contains(listen.host) ? host : listen.host
        url.withLock { $0 = "http://\(name.contains(":") ? "[\(name)]" : name):\(port)" }
    }
}
