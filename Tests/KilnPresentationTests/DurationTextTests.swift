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
import KilnPresentation
import Testing

@Suite("Durations as pages, mail and the terminal write them")
struct DurationTextTests {
    @Test("Prose: tenths under 10 s, whole seconds under a minute, then minutes and hours")
    func prose() {
        #expect(DurationText.prose(nil) == "—")
        #expect(DurationText.prose(-1) == "—")
        #expect(DurationText.prose(.infinity) == "—")
        #expect(DurationText.prose(4.24) == "4.2 s")
        #expect(DurationText.prose(12.4) == "12 s")
        #expect(DurationText.prose(125) == "2 min 05 s")
        #expect(DurationText.prose(4320) == "1 h 12 min")
    }

    @Test("Compact: 12s, 2m5s, 3m, 1h12m")
    func compact() {
        #expect(DurationText.compact(12.4) == "12s")
        #expect(DurationText.compact(125) == "2m5s")
        #expect(DurationText.compact(180) == "3m")
        #expect(DurationText.compact(4320) == "1h12m")
        #expect(DurationText.compact(-3) == "0s")
    }
}
