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

/// `matrix`: the environments one integration runs in, one cell per combination of its axes'
/// values, less the combinations `exclude` names (Xcode Server's devices, on Linux).
public struct Matrix: Sendable, Hashable {
    /// Toolchain names from the hosts' `toolchains:`; `default` is a host's own `swift`.
    public var toolchains: [String]
    public var configurations: [BuildConfiguration]
    public var sanitizers: [Sanitizer]
    /// Combinations left out: each names some axes' values, and a cell with all of them is left out.
    public var exclude: [Exclusion]
    /// Where the bot file lists the toolchains (or the matrix, when it does not), for warnings.
    public var toolchainsLine = 1
    public var toolchainsColumn = 1

    public init(
        toolchains: [String] = [Matrix.defaultToolchain], configurations: [BuildConfiguration] = [.debug], sanitizers: [Sanitizer] = [.none],
        exclude: [Exclusion] = []
    ) {
        self.toolchains = toolchains
        self.configurations = configurations
        self.sanitizers = sanitizers
        self.exclude = exclude
    }

    /// The matrix of `cell` alone (`kiln run --cell`).
    public init(only cell: Cell) {
        self.init(toolchains: [cell.toolchain], configurations: [cell.configuration], sanitizers: [cell.sanitizer])
    }

    /// The toolchain every host has: the `swift` on its PATH.
    public static let defaultToolchain = "default"

    /// The axes' names as bot files spell them.
    public static let axes = ["toolchain", "configuration", "sanitizer"]

    /// One combination to leave out, as `exclude` spells it: `{configuration: release, sanitizer: thread}`.
    public struct Exclusion: Sendable, Hashable {
        public var toolchain: String?
        public var configuration: BuildConfiguration?
        public var sanitizer: Sanitizer?

        public init(toolchain: String? = nil, configuration: BuildConfiguration? = nil, sanitizer: Sanitizer? = nil) {
            self.toolchain = toolchain
            self.configuration = configuration
            self.sanitizer = sanitizer
        }

        func excludes(_ cell: Cell) -> Bool {
            (toolchain.map { $0 == cell.toolchain } ?? true) && (configuration.map { $0 == cell.configuration } ?? true)
                && (sanitizer.map { $0 == cell.sanitizer } ?? true)
        }
    }

    /// Every combination of the axes, in the order the bot file lists their values, toolchain
    /// first, less the excluded.
    public var cells: [Cell] {
        var cells: [Cell] = []
        for toolchain in toolchains {
            for configuration in configurations {
                for sanitizer in sanitizers {
                    let cell = Cell(toolchain: toolchain, configuration: configuration, sanitizer: sanitizer)
                    if !exclude.contains(where: { $0.excludes(cell) }) { cells.append(cell) }
                }
            }
        }
        return cells
    }
}

/// One environment of a matrix: a toolchain, a configuration and a sanitizer.
public struct Cell: Sendable, Hashable {
    public var toolchain: String
    public var configuration: BuildConfiguration
    public var sanitizer: Sanitizer

    public init(toolchain: String = Matrix.defaultToolchain, configuration: BuildConfiguration = .debug, sanitizer: Sanitizer = .none) {
        self.toolchain = toolchain
        self.configuration = configuration
        self.sanitizer = sanitizer
    }

    /// The cell `name` names (`Cell.name`); nil for anything else.
    public init?(name: String) {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, Self.isValidToolchainName(parts[0]), let configuration = BuildConfiguration(rawValue: parts[1]),
            let sanitizer = Sanitizer(rawValue: parts[2])
        else { return nil }
        self.init(toolchain: parts[0], configuration: configuration, sanitizer: sanitizer)
    }

    /// Its values joined by `-`, as pages, the API and `kiln run --cell` name it: `default-release-none`.
    public var name: String {
        "\(toolchain)-\(configuration.rawValue)-\(sanitizer.rawValue)"
    }

    /// Whether `name` may name a toolchain: letters, digits, '.' and '_' (a cell's name joins its
    /// values with '-').
    public static func isValidToolchainName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" }
    }

    /// What `swift build` and `swift test` are given for the sanitizer: `--sanitize=thread`.
    public var sanitizerArguments: [String] {
        sanitizer == .none ? [] : ["--sanitize=\(sanitizer.rawValue)"]
    }
}

/// A sanitizer the package is built and tested under (`--sanitize=`).
public enum Sanitizer: String, CaseIterable, Codable, Sendable, Hashable {
    case none
    case thread
    case address
    case undefined
}

extension Bot {
    /// The bot as it runs in `cell`: its configuration, and the sanitizer's arguments added to
    /// its build's and tests' own.
    public func running(in cell: Cell) -> Bot {
        var bot = self
        bot.build.configuration = cell.configuration
        bot.build.arguments += cell.sanitizerArguments
        bot.test.arguments += cell.sanitizerArguments
        return bot
    }
}
