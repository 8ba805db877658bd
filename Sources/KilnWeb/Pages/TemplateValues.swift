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
import Mustache

/// A page's view value as the templates read it: every view struct in it (the page, its
/// properties, the elements of its arrays) turned once into a dictionary by property name.
///
/// Mustache finds a name in a struct by reflecting over it on every lookup, and a lookup that
/// misses (a section's item asked for a field of the page) reflects over each value on the way
/// up: a page of 60 fields paid for them at every `{{…}}`. A dictionary answers in one hash, so
/// the one reflection here replaces thousands. What a template sees is the same: a nil property
/// is absent, and absent names are looked up further out, as nil ones were; strings, numbers,
/// Booleans, enums and anything that describes itself stay as they are.
enum TemplateValues {
    static func of(_ value: Any) -> Any? {
        if value is String || value is Int || value is Bool || value is Double || value is CustomStringConvertible { return value }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return nil }
            return of(wrapped)
        case .collection:
            return mirror.children.compactMap { of($0.value) }
        case .struct:
            var values: [String: Any] = Dictionary(minimumCapacity: Int(mirror.children.count))
            for child in mirror.children {
                guard let label = child.label, let converted = of(child.value) else { continue }
                values[label] = converted
            }
            return values
        default:
            return value
        }
    }
}
