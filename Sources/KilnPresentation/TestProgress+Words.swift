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

extension TestProgress {
    /// "1 test failing so far": what the commit status and the page say while the rest runs.
    public var failingSoFar: String { "\(CountText.of(failed, "test")) failing so far" }

    /// "1 test failing so far, of 3 run; the others are still running": the page's notice.
    public var sentence: String {
        failed > 0
            ? "\(failingSoFar), of \(tests) run; the others are still running"
            : "\(CountText.of(tests, "test")) passed so far; the others are still running"
    }
}
