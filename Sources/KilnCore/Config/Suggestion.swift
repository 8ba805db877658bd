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

/// "Did you mean" suggestions for misspelt keys and values.
enum Suggestion {
    /// The candidate closest to `word` by edit distance, when it is close enough to be a likely typo.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let lowered = word.lowercased()
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(Array(lowered.unicodeScalars), Array(candidate.unicodeScalars))
            if distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        let allowed = max(1, min(3, best.candidate.count / 3))
        if best.distance <= allowed { return best.candidate }
        // A word cut short or run on ("success" for "succeeded"): a long shared beginning.
        let prefixed = candidates.map { ($0, commonPrefixLength(lowered, $0)) }.filter { $0.1 >= 4 && $0.1 * 2 >= lowered.count }
        guard let longest = prefixed.max(by: { $0.1 < $1.1 }), prefixed.filter({ $0.1 == longest.1 }).count == 1 else { return nil }
        return longest.0
    }

    private static func commonPrefixLength(_ a: String, _ b: String) -> Int {
        zip(a.unicodeScalars, b.unicodeScalars).prefix { $0 == $1 }.count
    }

    /// Damerau–Levenshtein distance (optimal string alignment): a swap of neighbours costs one.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }

    /// ` (did you mean 'x'?)`, or ` (expected one of a, b, c)` when nothing is close.
    static func hint(for word: String, in candidates: [String]) -> String {
        if let match = closest(to: word, in: candidates) { return " (did you mean '\(match)'?)" }
        return " (expected one of \(candidates.joined(separator: ", ")))"
    }
}
