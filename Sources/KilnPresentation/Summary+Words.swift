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

extension Summary {
    /// Coverage as pages, mails and the terminal write it: `87.5 %`; nil when it was not measured.
    public var coverageText: String? {
        coverage.map { String(format: "%.1f %%", $0) }
    }
}
