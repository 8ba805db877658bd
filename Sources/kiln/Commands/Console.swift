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

/// Writes whole lines straight to the terminal or pipe, unbuffered, so progress from a
/// long-running command reaches systemd's journal or a test as it happens.
enum Console {
    static func out(_ line: String) {
        write(line, to: STDOUT_FILENO)
    }

    static func error(_ line: String) {
        write(line, to: STDERR_FILENO)
    }

    /// One `write` for a line, as many as a pipe takes it in; what a closed pipe refuses is lost,
    /// as it is to any program.
    private static func write(_ line: String, to descriptor: Int32) {
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            written += count
        }
    }
}
