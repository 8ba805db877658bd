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

/// A shields-style badge: `build | succeeded`, coloured by the result.
enum Badge {
    static func svg(for overview: BotOverview) -> String {
        let (message, colour): (String, String) =
            if !overview.state.problems.isEmpty {
                ("broken", "#8250df")
            } else if let result = overview.last?.result {
                switch IntegrationReport.tone(result) {
                case "good": (result.rawValue, "#2da44e")
                case "warn": (result.rawValue, "#bf8700")
                case "bad": (result.rawValue, "#cf222e")
                case "fault": (result.rawValue, "#8250df")
                default: (result.rawValue, "#6e7781")
                }
            } else {
                ("no integration", "#6e7781")
            }
        let label = "build"
        // Verdana 11px averages about 6.5 px per character; pad 10 px each side.
        let labelWidth = Int(Double(label.count) * 6.5) + 10
        let messageWidth = Int(Double(message.count) * 6.5) + 10
        let width = labelWidth + messageWidth
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="20" role="img" aria-label="\(label): \(message)">\
            <title>\(label): \(message)</title>\
            <linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>\
            <clipPath id="r"><rect width="\(width)" height="20" rx="3" fill="#fff"/></clipPath>\
            <g clip-path="url(#r)"><rect width="\(labelWidth)" height="20" fill="#555"/><rect x="\(labelWidth)" width="\(messageWidth)" height="20" fill="\(colour)"/>\
            <rect width="\(width)" height="20" fill="url(#s)"/></g>\
            <g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">\
            <text x="\(labelWidth / 2)" y="14">\(label)</text><text x="\(labelWidth + messageWidth / 2)" y="14">\(message)</text></g></svg>

            """
    }
}
