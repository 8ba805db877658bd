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

/// An integration's log as a person reads it: its steps (each `=== step: command` header starts
/// one), its lines numbered from the log's first, and each line's colours as styles. Terminal
/// control sequences never reach a page as bytes: SGR colours and weights become `Span.style`,
/// every other escape or control character is dropped, and a carriage return keeps what the
/// terminal would have shown (the text after it).
public struct LogText: Sendable {
    /// A run of text of one style.
    public struct Span: Sendable, Equatable {
        public var text: String
        /// Space-separated style names (`bold`, `fg-red`, `bg-blue`, `dim`, `italic`,
        /// `underline`); empty for plain text.
        public var style: String
        public init(text: String, style: String) {
            self.text = text
            self.style = style
        }
    }

    public struct Line: Sendable {
        /// 1-based, counted from the log's first line.
        public var number: Int
        public var spans: [Span]
        /// Kiln's own note (`*** …`), not the build's output.
        public var note: Bool
    }

    public struct Section: Sendable {
        /// The header's text (`building: swift build`); empty for what comes before the first.
        public var title: String
        /// The step it belongs to, when the header names one (`building`).
        public var step: IntegrationStep?
        public var lines: [Line]
        /// Lines of the section left out before `lines` (a very long step shows its end).
        public var omitted: Int
    }

    public var sections: [Section]

    /// `text`, whose first line is line `firstLine` of the log; each section keeps at most its
    /// last `linesPerSection` lines.
    public init(_ text: Substring, firstLine: Int = 1, linesPerSection: Int = .max) {
        var sections: [Section] = [Section(title: "", step: nil, lines: [], omitted: 0)]
        var number = firstLine
        var state = Style()
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0) {
            defer { number += 1 }
            if raw.hasPrefix("=== ") {
                let title = String(raw.dropFirst(4))
                let word = title.prefix { $0 != ":" }
                sections.append(Section(title: title, step: IntegrationStep(rawValue: String(word)), lines: [], omitted: 0))
                state = Style()
                continue
            }
            let line = Line(number: number, spans: Self.spans(of: raw, style: &state), note: raw.hasPrefix("*** "))
            sections[sections.count - 1].lines.append(line)
        }
        if sections.first?.lines.isEmpty == true, sections.count > 1 { sections.removeFirst() }
        for index in sections.indices where sections[index].lines.count > linesPerSection {
            sections[index].omitted = sections[index].lines.count - linesPerSection
            sections[index].lines.removeFirst(sections[index].omitted)
        }
        self.sections = sections
    }

    /// The text a terminal would show of one line, with no control characters: what tests and
    /// searches compare.
    public static func plain(_ line: Substring) -> String {
        var style = Style()
        return spans(of: line, style: &style).map(\.text).joined()
    }

    // MARK: Reading the escapes

    /// The style SGR sequences set, carried from one line to the next as a terminal does.
    struct Style: Equatable {
        var bold = false
        var dim = false
        var italic = false
        var underline = false
        var foreground: String?
        var background: String?

        var names: String {
            if self == Style() { return "" }
            var names: [String] = []
            if bold { names.append("bold") }
            if dim { names.append("dim") }
            if italic { names.append("italic") }
            if underline { names.append("underline") }
            if let foreground { names.append("fg-" + foreground) }
            if let background { names.append("bg-" + background) }
            return names.joined(separator: " ")
        }

        static let colours = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

        /// Applies one SGR sequence's parameters (`1;31`).
        mutating func apply(_ parameters: [Int]) {
            var index = 0
            let parameters = parameters.isEmpty ? [0] : parameters
            while index < parameters.count {
                let code = parameters[index]
                switch code {
                case 0: self = Style()
                case 1: bold = true
                case 2: dim = true
                case 3: italic = true
                case 4: underline = true
                case 22: (bold, dim) = (false, false)
                case 23: italic = false
                case 24: underline = false
                case 30...37: foreground = Self.colours[code - 30]
                case 39: foreground = nil
                case 40...47: background = Self.colours[code - 40]
                case 49: background = nil
                case 90...97: foreground = "bright-" + Self.colours[code - 90]
                case 100...107: background = "bright-" + Self.colours[code - 100]
                case 38, 48:
                    // 256 colours (`38;5;n`) and true colour (`38;2;r;g;b`): skipped, as their
                    // parameters are.
                    if index + 1 < parameters.count { index += parameters[index + 1] == 5 ? 2 : parameters[index + 1] == 2 ? 4 : 1 }
                default: break
                }
                index += 1
            }
        }
    }

    /// One line's spans; `style` is the style it starts in and is left as it ends.
    static func spans(of line: Substring, style: inout Style) -> [Span] {
        // Most lines hold no control character at all: one span, without reading them scalar by
        // scalar (a page's tail is thousands of lines).
        if !line.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return line.isEmpty ? [] : [Span(text: String(line), style: style.names)]
        }
        // What a terminal shows of a line redrawn with carriage returns (a progress bar): the
        // last drawing. A trailing one (CRLF) redraws nothing.
        var visible = line
        while visible.last == "\r" { visible.removeLast() }
        if let carriage = visible.lastIndex(of: "\r") { visible = visible[visible.index(after: carriage)...] }
        // Runs of text between escapes are cut out whole; only an escape is read byte by byte.
        let bytes = Array(visible.utf8)
        var spans: [Span] = []
        var text = ""
        func flush() {
            guard !text.isEmpty else { return }
            let names = style.names
            if let last = spans.last, last.style == names {
                spans[spans.count - 1].text += text
            } else {
                spans.append(Span(text: text, style: names))
            }
            text = ""
        }
        var index = 0
        var runStart = 0
        func endRun() {
            if runStart < index { text += String(decoding: bytes[runStart..<index], as: UTF8.self) }
        }
        while index < bytes.count {
            let byte = bytes[index]
            guard (byte < 0x20 && byte != 0x09) || byte == 0x7F else {
                index += 1
                continue
            }
            endRun()
            index += 1
            if byte == 0x1B, index < bytes.count {
                let kind = bytes[index]
                index += 1
                if kind == UInt8(ascii: "[") {
                    // CSI: parameters, then one final byte; only `m` (SGR) means anything here.
                    let parameters = index
                    while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
                    if index < bytes.count, bytes[index] == UInt8(ascii: "m") {
                        flush()
                        let text = String(decoding: bytes[parameters..<index], as: UTF8.self)
                        style.apply(text.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 })
                    }
                    index += 1
                } else if kind == UInt8(ascii: "]") {
                    // OSC (a window title, a hyperlink): up to BEL or ESC \.
                    while index < bytes.count, bytes[index] != 0x07, bytes[index] != 0x1B { index += 1 }
                    index += index < bytes.count && bytes[index] == 0x1B ? 2 : 1
                }
            }
            runStart = index
        }
        index = min(index, bytes.count)
        endRun()
        flush()
        return spans
    }
}
