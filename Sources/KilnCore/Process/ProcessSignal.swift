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

/// Sends `signal` to `process` (a negative number: to its process group; signal 0: only asks
/// whether it exists), and returns 0, or -1 with `errno` set. The one place Kiln names POSIX's
/// call for it, so that its own language check reads that word once.
@discardableResult
public func sendSignal(_ signal: Int32, to process: pid_t) -> Int32 {
    kill(process, signal)  // ignore-unacceptable-language: POSIX's name for sending a signal
}
