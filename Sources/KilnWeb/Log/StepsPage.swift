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

/// What Web/steps.mustache renders: an integration's log as its steps, each a section with its
/// duration, folded but for the one that failed, its lines numbered and anchored (`#L120`) and
/// coloured as the terminal showed them.
struct StepsPage {
    struct SectionView {
        var title: String
        var anchor: String
        var duration: String?
        var open: Bool
        var failed: Bool
        /// Its lines, as HTML made by `LogHTML` (escaped there).
        var linesHTML: String
        /// "1,200 earlier lines are in the whole log", for a very long step.
        var omitted: String?
    }

    var title: String
    var bot: String
    var botURL: String
    var integrationURL: String
    var number: Int
    var cell: String?
    var result: String
    var tone: String
    var logURL: String
    var sections: [SectionView]
    var hasSections: Bool
    /// The log's first part is left out (a log larger than the page reads).
    var skipped: String?

    /// The step an integration ended in when it failed there: its section opens.
    static func failedStep(_ result: IntegrationResult?) -> IntegrationStep? {
        switch result {
        case .checkoutError: .checkout
        case .triggerError: .beforeTriggers
        case .buildErrors: .building
        case .testFailures: .testing
        case .analyzerWarnings: .analyzing
        default: nil
        }
    }

    /// The section a person should read first: the failed step's (its last, when it ran twice),
    /// else the log's last for an integration that did not succeed, else none.
    static func openSection(of log: LogText, result: IntegrationResult?, marked: Int?) -> Int? {
        if let marked, let index = log.sections.firstIndex(where: { $0.lines.contains { $0.number == marked } }) { return index }
        if let step = failedStep(result), let index = log.sections.lastIndex(where: { $0.step == step }) { return index }
        guard let result, result != .succeeded, result != .warnings else { return nil }
        return log.sections.indices.last
    }

    static func sections(
        of log: LogText, steps: [StepTiming], result: IntegrationResult?, marked: Int?
    ) -> [SectionView] {
        let open = openSection(of: log, result: result, marked: marked)
        let failed = failedStep(result)
        var seen: [String: Int] = [:]
        return log.sections.enumerated().map { index, section in
            let name = section.step?.rawValue ?? (section.title.isEmpty ? "start" : "log")
            seen[name, default: 0] += 1
            let anchor = "step-" + name + (seen[name] == 1 ? "" : "-\(seen[name] ?? 0)")
            let duration = section.step.flatMap { step in steps.first { $0.name == step } }.map { DurationText.prose($0.duration) }
            return SectionView(
                title: section.title.isEmpty ? "start" : section.title, anchor: anchor, duration: duration, open: index == open,
                failed: section.step != nil && section.step == failed && index == open,
                linesHTML: LogHTML.lines(section.lines, anchored: true, marked: marked),
                omitted: section.omitted > 0 ? "\(CountText.of(section.omitted, "earlier line")) of this step are in the whole log" : nil)
        }
    }
}
