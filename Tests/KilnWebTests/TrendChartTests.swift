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
import KilnPresentation
import KilnTestSupport
import Testing

@testable import KilnWeb

@Suite("Charts people can read")
struct TrendChartTests {
    static func points(_ values: [Double?]) -> [TrendChart.Point] {
        values.enumerated().map { TrendChart.Point(number: $0.offset + 10, url: "/bots/app/integrations/\($0.offset + 10)", value: $0.element) }
    }

    /// The y of each point, in order.
    static func ys(_ svg: String) -> [Double] {
        svg.matches(of: /<circle cx="[0-9.]+" cy="([0-9.]+)"/).compactMap { Double($0.output.1) }
    }

    @Test("Flat data is a flat line, however small: durations of 0.0001 s and 0.0002 s sit on the zero axis's level, not a rising line")
    func flat() {
        let tiny = TrendChart(title: "Duration", points: Self.points([0.0001, 0.0002, 0.0001]), format: DurationText.prose)
        let ys = Self.ys(tiny.svg)
        #expect(ys.count == 3 && Set(ys).count == 1, "values that all read 0.0 s are level: \(ys)")
        let level = TrendChart(title: "Tests", points: Self.points([12, 12, 12]), format: { String(Int($0)) })
        let levelYs = Self.ys(level.svg)
        #expect(Set(levelYs).count == 1, "equal values, one height: \(levelYs)")
        let zeros = TrendChart(title: "Issues", points: Self.points([0, 0, 0]), format: { String(Int($0)) })
        #expect(Set(Self.ys(zeros.svg)).count == 1 && !zeros.empty)
        // Proportions from zero: 12 and 13 are nearly level, not bottom and top.
        let near = Self.ys(TrendChart(title: "Tests", points: Self.points([12, 13]), format: { String(Int($0)) }).svg)
        #expect(near.count == 2 && abs(near[0] - near[1]) < 10, "\(near)")
    }

    @Test("Axes with the figure's unit and the first and last integration; every point links to its integration and names its value")
    func axesAndPoints() {
        let chart = TrendChart(title: "Duration", points: Self.points([4, nil, 12.5]), format: DurationText.prose)
        #expect(chart.svg.contains(">\(DurationText.prose(12.5))</text>") && chart.svg.contains(">\(DurationText.prose(0))</text>"), "\(chart.svg)")
        #expect(chart.svg.contains(">#10</text>") && chart.svg.contains(">#12</text>"))
        #expect(chart.svg.contains(#"<a href="/bots/app/integrations/12" tabindex="-1"><circle"#))
        #expect(chart.svg.contains("<title>#12: \(DurationText.prose(12.5))</title>"))
        #expect(Self.ys(chart.svg).count == 2, "a missing value is skipped, not drawn as zero")
        #expect(chart.svg.contains(#"aria-label="Duration over 3 integrations, from"#))
        #expect(chart.latest == DurationText.prose(12.5) && chart.low == DurationText.prose(4))
        #expect(TrendChart(title: "Coverage", points: Self.points([nil]), format: { "\($0)" }).empty)
        let measured = TrendChart(
            title: "<Time>", points: [TrendChart.Point(number: 3, url: "/x", value: 2, reference: 1)], format: { String($0) })
        #expect(measured.hasReference && measured.svg.contains("stroke-dasharray") && measured.svg.contains("&lt;Time&gt;"))
    }
}

@Suite("A matrix test's page")
struct MatrixTestPageTests {
    @Test("One row per cell per integration, the cell in each; counts of integrations; a flip rate and a chart per cell")
    func perCell() async throws {
        let web = try await WebFixture.start(bots: ["app": Bots.following("https://example.com/app.git")])
        defer { Task { await web.stop() } }
        for (index, release) in [TestStatus.passed, .failed, .failed].enumerated() {
            let tests = [
                TestCase(suite: "MathTests", name: "testAdds", status: .passed, duration: 0.1, cell: "default-debug-none"),
                TestCase(
                    suite: "MathTests", name: "testAdds", status: release, duration: 0.2, message: release == .failed ? "no" : nil,
                    cell: "default-release-none"),
            ]
            _ = try await web.store.record(
                "app", outcome: IntegrationOutcome(result: release == .failed ? .testFailures : .succeeded, tests: tests), commit: "c\(index)")
        }
        let page = try await web.get("/bots/app/tests/MathTests/testAdds").text
        let rows = page.matches(of: /<tr><td><a href="\/bots\/app\/integrations\/(\d)">\d<\/a><\/td><td>([a-z-]+)<\/td><td class="(\w+)">/).map {
            "\($0.output.1) \($0.output.2) \($0.output.3)"
        }
        #expect(
            rows == [
                "3 default-debug-none good", "3 default-release-none bad", "2 default-debug-none good", "2 default-release-none bad",
                "1 default-debug-none good", "1 default-release-none good",
            ], "\(rows)")
        #expect(page.contains("<th>Cell</th>"))
        #expect(page.contains("4 passed, 2 failed in the last 3 integrations (6 results in 2 cells)"), "\(page)")
        #expect(page.contains("default-debug-none: 0 % (0 changes of result); default-release-none: 50 % (1 change of result)"), "\(page)")
        #expect(page.contains("Duration in default-debug-none") && page.contains("Duration in default-release-none"))
        // Failing on one commit in release and passing on it in debug is no flakiness: each cell is judged alone.
        #expect(!page.contains("result warn\">flaky"), "\(page)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try await web.get("/api/bots/app/tests/MathTests/testAdds").text.utf8)) as? [String: Any])
        let cells = json["cells"] as? [[String: Any]] ?? []
        #expect(cells.compactMap { $0["name"] as? String } == ["default-debug-none", "default-release-none"], "\(json)")
        #expect(cells.compactMap { $0["flipRate"] as? Double } == [0, 0.5] && json["flaky"] as? Bool == false, "\(json)")
        #expect(json["flipRate"] is NSNull, "one rate over cells that do not follow one another says nothing")
        #expect((json["results"] as? [[String: Any]])?.first?["cell"] as? String == "default-debug-none")
    }
}
