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

extension Duration {
    /// Parses the durations bot files use: a sequence of `<number><unit>` with units `d`, `h`, `m`
    /// and `s`, largest first (`90s`, `2m`, `1h30m`); a bare `0` means zero. Nil when malformed.
    public static func parsing(_ text: String) -> Duration? {
        let units: [(Character, Int64)] = [("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)]
        if text == "0" { return .zero }
        var seconds: Int64 = 0
        var digits = ""
        var lastUnitIndex = -1
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                guard digits.count < 9 else { return nil }
                digits.append(Character(String(digit)))
                continue
            }
            guard let unitIndex = units.firstIndex(where: { $0.0 == character }), unitIndex > lastUnitIndex,
                let value = Int64(digits)
            else { return nil }
            seconds += value * units[unitIndex].1
            lastUnitIndex = unitIndex
            digits = ""
        }
        guard digits.isEmpty, lastUnitIndex >= 0 else { return nil }
        return .seconds(seconds)
    }

    /// The duration in whole seconds.
    public var wholeSeconds: Int64 { components.seconds }

    /// The duration in seconds, fractions included, as the store and the progress display count.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// The shortest spelling `parsing(_:)` reads back: `1h30m`, `90s` is `1m30s`.
    public var configSpelling: String {
        var remaining = components.seconds
        if remaining == 0 { return "0" }
        var text = ""
        for (unit, size) in [("d", Int64(86_400)), ("h", 3_600), ("m", 60), ("s", 1)] where remaining >= size {
            text += "\(remaining / size)\(unit)"
            remaining %= size
        }
        return text
    }
}
