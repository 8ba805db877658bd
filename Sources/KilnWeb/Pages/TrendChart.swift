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

/// A small chart of one figure over the last integrations (oldest first), written as SVG here (a
/// template would reflect over every point): a vertical axis from zero (or the lowest value,
/// when below zero) to the highest, labelled in the figure's unit; the first and last integration
/// under it; a point per integration that links to it and names its value; a dashed line for a
/// reference series (a measurement's baseline). Flat data draws a flat line, however small its
/// values.
struct TrendChart {
    var title: String
    var latest: String
    var low: String
    var high: String
    var empty: Bool
    /// The chart, escaped where it holds text (values are formatted numbers, links are Kiln's).
    var svg: String
    var hasReference: Bool

    static let width = 320.0
    static let height = 120.0
    /// Room for the axis labels: left of the plot and under it.
    static let left = 56.0
    static let bottom = 18.0
    static let top = 8.0
    static let right = 8.0

    /// One integration's value; nil where it has none (skipped, not drawn as zero).
    struct Point {
        var number: Int
        var url: String
        var value: Double?
        var reference: Double? = nil
    }

    init(title: String, points: [Point], format: (Double) -> String) {
        self.title = title
        let present = points.compactMap(\.value)
        empty = present.isEmpty
        hasReference = points.contains { $0.reference != nil }
        let scale = present + points.compactMap(\.reference)
        let low = min(0, scale.min() ?? 0)
        let high = scale.max() ?? 0
        self.low = present.isEmpty ? "" : format(present.min() ?? 0)
        self.high = present.isEmpty ? "" : format(present.max() ?? 0)
        latest = present.last.map(format) ?? "—"
        svg = empty ? "" : Self.svg(title: title, points: points, low: low, high: high, format: format)
    }

    private static func svg(title: String, points: [Point], low: Double, high: Double, format: (Double) -> String) -> String {
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        // Values the figure's own words cannot tell apart (0.0001 s and 0.0002 s are both
        // "0.0 s") are level: a line rising between them would show a change nobody can read.
        let level = format(high) == format(low)
        let span = high > low && !level ? high - low : 1
        let step = points.count > 1 ? plotWidth / Double(points.count - 1) : 0
        let x = { (index: Int) in left + (points.count > 1 ? Double(index) * step : plotWidth / 2) }
        let y = { (value: Double) in level ? top + plotHeight : top + (1 - (value - low) / span) * plotHeight }
        let number = { (value: Double) in String(format: "%.1f", value) }
        var line: [String] = []
        var reference: [String] = []
        var dots = ""
        for (index, point) in points.enumerated() {
            if let value = point.reference { reference.append("\(number(x(index))),\(number(y(value)))") }
            guard let value = point.value else { continue }
            let (cx, cy) = (number(x(index)), number(y(value)))
            line.append("\(cx),\(cy)")
            dots +=
                "<a href=\"\(escaped(point.url))\" tabindex=\"-1\"><circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"3\"><title>#\(point.number): "
                + "\(escaped(format(value)))</title></circle></a>"
        }
        let (bottomY, topY) = (number(y(low)), number(y(high)))
        let label = "\(title) over \(points.count) integration\(points.count == 1 ? "" : "s"), from \(format(low)) to \(format(high))"
        var svg =
            "<svg viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" "
            + "aria-label=\"\(escaped(label))\">"
        svg += "<g class=\"axis\"><line x1=\"\(left)\" y1=\"\(topY)\" x2=\"\(left)\" y2=\"\(bottomY)\"/>"
        svg += "<line x1=\"\(left)\" y1=\"\(bottomY)\" x2=\"\(width - right)\" y2=\"\(bottomY)\"/>"
        svg += "<line class=\"grid\" x1=\"\(left)\" y1=\"\(topY)\" x2=\"\(width - right)\" y2=\"\(topY)\"/>"
        svg += "<text x=\"\(left - 4)\" y=\"\(topY)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(escaped(format(high)))</text>"
        svg += "<text x=\"\(left - 4)\" y=\"\(bottomY)\" text-anchor=\"end\" dominant-baseline=\"middle\">\(escaped(format(low)))</text>"
        if let first = points.first, let last = points.last {
            let baseline = number(height - 4)
            svg += "<text x=\"\(left)\" y=\"\(baseline)\">#\(first.number)</text>"
            if points.count > 1 { svg += "<text x=\"\(width - right)\" y=\"\(baseline)\" text-anchor=\"end\">#\(last.number)</text>" }
        }
        svg += "</g>"
        if !reference.isEmpty {
            svg += "<polyline class=\"reference\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"1\" stroke-dasharray=\"3 3\" opacity=\"0.6\" "
            svg += "points=\"\(reference.joined(separator: " "))\"/>"
        }
        svg += "<polyline fill=\"none\" stroke=\"currentColor\" stroke-width=\"1.5\" points=\"\(line.joined(separator: " "))\"/>"
        svg += "<g class=\"points\">\(dots)</g></svg>"
        return svg
    }

    private static func escaped(_ text: String) -> String {
        var html = ""
        LogHTML.escape(text, into: &html)
        return html
    }
}
