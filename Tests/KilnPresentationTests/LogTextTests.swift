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

@Suite("A log as a person reads it: steps, numbered lines, colours as styles")
struct LogTextTests {
    @Test("SGR colours and weights become styles that carry across lines until reset; no escape byte is left")
    func colours() {
        let log = LogText("\u{1B}[1;31merror:\u{1B}[0m cannot find 'x'\n\u{1B}[32mgreen\non\u{1B}[39m plain\u{1B}[38;5;196m256\u{1B}[0m\n")
        let lines = log.sections.flatMap(\.lines)
        #expect(lines.map(\.number) == [1, 2, 3])
        #expect(lines[0].spans == [.init(text: "error:", style: "bold fg-red"), .init(text: " cannot find 'x'", style: "")])
        #expect(lines[1].spans == [.init(text: "green", style: "fg-green")])
        #expect(lines[2].spans == [.init(text: "on", style: "fg-green"), .init(text: " plain256", style: "")])
        #expect(lines.allSatisfy { $0.spans.allSatisfy { !$0.text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" } } })
    }

    @Test("Other escapes and control characters are dropped; a carriage return keeps what the terminal showed last")
    func controls() {
        #expect(LogText.plain("\u{1B}[2K\u{1B}[1Gdone\u{07}\u{1B}]0;title\u{07}!") == "done!")
        #expect(LogText.plain("[1/3] Compiling\r[2/3] Compiling\r[3/3] Linking") == "[3/3] Linking")
        #expect(LogText.plain("windows line\r") == "windows line")
        #expect(LogText.plain("tab\there") == "tab\there")
    }

    @Test("Each `=== step: command` header starts a section of that step; lines keep the log's numbers; a long step keeps its end")
    func sections() {
        let text = "kiln 1.0\n=== checkout: repo main\nchecked out\n=== building: swift build\na\nb\nc\n*** result: build-errors\n"
        let log = LogText(text[...], firstLine: 10, linesPerSection: 2)
        #expect(log.sections.map(\.title) == ["", "checkout: repo main", "building: swift build"])
        #expect(log.sections.map(\.step) == [nil, .checkout, .building])
        let building = log.sections[2]
        #expect(building.omitted == 2 && building.lines.map(\.number) == [16, 17])
        #expect(building.lines.last?.note == true && building.lines.first?.note == false)
    }
}
