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

import Yams

extension BotFile {
    /// `matrix: {toolchain: […], configuration: […], sanitizer: […], exclude: [{…}]}`: each axis a
    /// list of distinct values (a single value is a list of one), each exclusion naming values
    /// the axes list.
    static func decodeMatrix(_ node: Node, path: ConfigPath, reader: ConfigReader) -> Matrix? {
        guard let fields = reader.mapping(node, path: path, keys: Matrix.axes + ["exclude"]) else { return nil }
        var matrix = Matrix()
        var failed = false
        func axis<Value: Hashable>(_ key: String, _ element: (Node, ConfigPath) -> Value?) -> [Value]? {
            guard let node = fields[key] else { return nil }
            guard let values = reader.list(node, path: fields.path(key), element: element) else {
                failed = true
                return nil
            }
            guard !values.isEmpty, Set(values).count == values.count else {
                reader.error("'\(key)' must list at least one value, each once", at: node, path: fields.path(key))
                failed = true
                return nil
            }
            return values
        }
        if let values = axis("toolchain", { item, path in toolchain(item, path: path, reader: reader) }) { matrix.toolchains = values }
        if let mark = (fields["toolchain"] ?? node).mark { (matrix.toolchainsLine, matrix.toolchainsColumn) = (mark.line, mark.column) }
        if let values = axis("configuration", { reader.choice($0, path: $1, as: BuildConfiguration.self) }) { matrix.configurations = values }
        if let values = axis("sanitizer", { reader.choice($0, path: $1, as: Sanitizer.self) }) { matrix.sanitizers = values }
        if let node = fields["exclude"] {
            guard let exclusions = reader.list(node, path: fields.path("exclude"), element: { exclusion($0, path: $1, of: matrix, reader: reader) })
            else { return nil }
            matrix.exclude = exclusions
        }
        guard !failed else { return nil }
        let cells = matrix.cells
        if cells.isEmpty {
            reader.error("the matrix's exclusions leave no cell to run", at: node, path: path)
            return nil
        }
        return matrix
    }

    /// A toolchain's name: `default` (the `swift` on each host's PATH) or one that hosts name
    /// under `toolchains:` in `kiln.yml`. Which hosts offer it is known only when a cell runs
    /// (`kiln validate` warns of one this host lacks).
    private static func toolchain(_ node: Node, path: ConfigPath, reader: ConfigReader) -> String? {
        guard let name = reader.string(node, path: path, expected: "a toolchain's name") else { return nil }
        guard Cell.isValidToolchainName(name) else {
            reader.error(
                "'\(name)' is not a toolchain name (letters, digits, '.' and '_', as hosts name them under toolchains:)", at: node, path: path)
            return nil
        }
        return name
    }

    /// One `exclude` entry: a mapping of some axes to values the matrix lists.
    private static func exclusion(_ node: Node, path: ConfigPath, of matrix: Matrix, reader: ConfigReader) -> Matrix.Exclusion? {
        guard let fields = reader.mapping(node, path: path, keys: Matrix.axes) else { return nil }
        guard !fields.fields.isEmpty else {
            reader.error("an exclusion names at least one of \(Matrix.axes.joined(separator: ", "))", at: node, path: path)
            return nil
        }
        var exclusion = Matrix.Exclusion()
        var failed = false
        func listed<Value: Equatable>(_ key: String, _ value: Value?, among values: [Value], spelled: (Value) -> String) -> Value? {
            guard let value, let node = fields[key] else { return nil }
            guard values.contains(value) else {
                let names = values.map(spelled).joined(separator: ", ")
                reader.error("exclude names \(key) '\(spelled(value))', which the matrix does not list (\(names))", at: node, path: fields.path(key))
                failed = true
                return nil
            }
            return value
        }
        let toolchain = fields["toolchain"].flatMap { reader.string($0, path: fields.path("toolchain"), expected: "a toolchain's name") }
        exclusion.toolchain = listed("toolchain", toolchain, among: matrix.toolchains) { $0 }
        let configuration = fields["configuration"].flatMap { reader.choice($0, path: fields.path("configuration"), as: BuildConfiguration.self) }
        exclusion.configuration = listed("configuration", configuration, among: matrix.configurations, spelled: \.rawValue)
        let sanitizer = fields["sanitizer"].flatMap { reader.choice($0, path: fields.path("sanitizer"), as: Sanitizer.self) }
        exclusion.sanitizer = listed("sanitizer", sanitizer, among: matrix.sanitizers, spelled: \.rawValue)
        return failed ? nil : exclusion
    }
}
