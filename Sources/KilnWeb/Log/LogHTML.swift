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

import KilnPresentation

/// Log lines as the HTML inside a page's `<pre>`, written here rather than by the templates: a
/// log has thousands of lines, and Mustache's reflection over a value per line and per span
/// cost an integration page 60 ms (16 pages a second instead of 490). Every piece of the log's
/// text is escaped here; the only other things written are fixed class names (`LogText.Span`'s
/// style names, made of letters and dashes by Kiln) and line numbers.
enum LogHTML {
    /// The lines, each a `span.line` (with `id="LN"` and a link to itself when `anchored`).
    static func lines(_ lines: [LogText.Line], anchored: Bool, marked: Int? = nil) -> String {
        var html = ""
        html.reserveCapacity(lines.count * 64)
        for line in lines {
            html += "<span class=\"line"
            if line.note { html += " note" }
            if line.number == marked { html += " marked" }
            html += "\""
            if anchored { html += " id=\"L\(line.number)\"><a class=\"n\" href=\"#L\(line.number)\">\(line.number)</a>" } else { html += ">" }
            for span in line.spans {
                if span.style.isEmpty {
                    escape(span.text, into: &html)
                } else {
                    html += "<span class=\"\(span.style)\">"
                    escape(span.text, into: &html)
                    html += "</span>"
                }
            }
            html += "\n</span>"
        }
        return html
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` as entities.
    static func escape(_ text: String, into html: inout String) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": html += "&amp;"
            case "<": html += "&lt;"
            case ">": html += "&gt;"
            case "\"": html += "&quot;"
            case "'": html += "&#39;"
            default: html.unicodeScalars.append(scalar)
            }
        }
    }
}
