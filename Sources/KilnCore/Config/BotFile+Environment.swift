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
    /// `environment: {NAME: value}`: variables for every process of an integration, sorted by
    /// name; `KILN_` names are Kiln's own.
    static func decodeEnvironment(_ node: Node, path: ConfigPath, reader: ConfigReader) -> [EnvironmentVariable] {
        guard case .mapping(let mapping) = node else {
            reader.error("'environment' must be a mapping of variable names to values, not \(ConfigReader.kind(of: node))", at: node, path: path)
            return []
        }
        var variables: [EnvironmentVariable] = []
        for (key, value) in mapping {
            guard case .scalar(let keyScalar) = key, EnvironmentVariable.isValidName(keyScalar.string) else {
                reader.error(
                    "\(ConfigReader.kind(of: key)) is not a variable name (letters, digits and _, not starting with a digit)", at: key, path: path)
                continue
            }
            let name = keyScalar.string
            if name.hasPrefix("KILN_") {
                reader.error("'\(name)' is reserved: Kiln sets the KILN_ variables itself", at: key, path: path.key(name))
                continue
            }
            guard case .scalar(let valueScalar) = value else {
                reader.error("'\(name)' must be a string, not \(ConfigReader.kind(of: value))", at: value, path: path.key(name))
                continue
            }
            variables.append(EnvironmentVariable(name: name, value: ConfigReader.isNull(value) ? "" : valueScalar.string))
        }
        return variables.sorted { $0.name < $1.name }
    }

    /// `secrets: [NAME]`: variables taken from the server's environment, each with where it is
    /// named (for `kiln validate`'s warning about a value too short to mask).
    static func decodeSecrets(_ node: Node, path: ConfigPath, into bot: inout Bot, reader: ConfigReader) {
        var places: [String: FilePlace] = [:]
        bot.secrets =
            reader.list(node, path: path) { item, path in
                guard let name = reader.string(item, path: path, expected: "a variable name") else { return nil }
                guard EnvironmentVariable.isValidName(name) else {
                    reader.error("'\(name)' is not a variable name (letters, digits and _, not starting with a digit)", at: item, path: path)
                    return nil
                }
                if let mark = item.mark { places[name] = FilePlace(line: mark.line, column: mark.column) }
                return name
            } ?? []
        bot.secretPlaces = places
    }
}
