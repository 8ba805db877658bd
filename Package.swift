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

// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "kiln",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "kiln", targets: ["kiln"]),
        .executable(name: "kiln-bench", targets: ["KilnBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // libgit2 and libcurl are opened on first use (CLibraryLoader), not linked: short commands
        // start without them. Their headers come from libgit2-dev and libcurl4-openssl-dev.
        .target(name: "CLibraryLoader", exclude: ["README.md"]),
        .target(name: "CGit2", dependencies: ["CLibraryLoader"], exclude: ["README.md"]),
        .target(name: "CCurl", dependencies: ["CLibraryLoader"], exclude: ["README.md"]),
        .systemLibrary(name: "CMalloc"),

        .target(
            name: "KilnCore",
            dependencies: [.product(name: "Yams", package: "Yams"), .product(name: "Logging", package: "swift-log")],
            exclude: ["README.md"]
        ),
        .target(name: "KilnPresentation", dependencies: ["KilnCore"], exclude: ["README.md"]),
        .target(name: "KilnGit", dependencies: ["CGit2", "KilnCore"], exclude: ["README.md"]),
        .target(
            name: "KilnStore",
            dependencies: [
                "KilnCore", "KilnPresentation", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ],
            exclude: ["README.md"],
            resources: [
                .embedInCode("Schema/sqlite-history.sql"), .embedInCode("Schema/postgres-history.sql"),
                .embedInCode("Schema/sqlite-schema.sql"),
            ]
        ),
        .target(
            name: "KilnBuild",
            dependencies: [
                "KilnCore", "KilnPresentation", .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "KilnMail", dependencies: ["CCurl", "KilnCore", .product(name: "Mustache", package: "swift-mustache")], exclude: ["README.md"]),
        .target(
            name: "KilnServer",
            dependencies: [
                "KilnCore", "KilnPresentation", "KilnGit", "KilnStore", "KilnBuild", "KilnMail", "KilnWeb",
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            exclude: ["README.md"]
        ),
        .target(
            name: "KilnWeb",
            dependencies: [
                "KilnCore", "KilnPresentation", "KilnStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),
        .executableTarget(
            name: "kiln",
            dependencies: [
                "CMalloc", "KilnCore", "KilnPresentation", "KilnGit", "KilnStore", "KilnServer", "KilnWeb",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            exclude: ["README.md"],
            // The static stdlib's link line exports every symbol of Kiln and its packages (51,000),
            // which the runtime's dladdr at start scans one by one: ~2 ms of every command. And a
            // release (built with the static Swift runtime, as every release build here is) is a
            // position-dependent executable, as Go links by default: a position-independent one
            // has 145,000 relocations for the loader to apply at every start (about 1 ms of
            // `kiln --version`'s 3, and of `kiln trigger`'s). What it gives up is a random
            // address for Kiln's own code; shared libraries, heap and stacks keep theirs
            // (docs/operations.md, "Build and install Kiln"). Not for a debug build: against the
            // shared runtime, the loader warns of each protected function Kiln refers to.
            linkerSettings: [
                .unsafeFlags(["-Xlinker", "--no-export-dynamic"]),
                .unsafeFlags(["-Xclang-linker", "-no-pie"], .when(configuration: .release)),
            ]
        ),
        .executableTarget(
            name: "KilnBench",
            dependencies: [
                "KilnCore", "KilnGit", "KilnStore", "KilnBuild", "KilnMail", "KilnServer", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["README.md"]
        ),

        .executableTarget(name: "kiln-store-stress", dependencies: ["KilnCore", "KilnStore"], path: "Tests/KilnStoreStress"),
        .target(name: "KilnTestSupport", dependencies: ["KilnCore", "KilnStore"], path: "Tests/KilnTestSupport"),
        .testTarget(name: "KilnCoreTests", dependencies: ["KilnCore", "KilnTestSupport"]),
        .testTarget(name: "KilnPresentationTests", dependencies: ["KilnPresentation", "KilnTestSupport"]),
        .testTarget(name: "KilnGitTests", dependencies: ["KilnGit", "KilnTestSupport"]),
        .testTarget(name: "KilnStoreTests", dependencies: ["KilnStore", "KilnPresentation", "KilnTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "KilnBuildTests", dependencies: ["KilnBuild", "KilnTestSupport"]),
        .testTarget(name: "KilnMailTests", dependencies: ["KilnMail", "KilnTestSupport"]),
        .testTarget(
            name: "KilnServerTests",
            dependencies: [
                "KilnServer", "KilnStore", "KilnGit", "KilnMail", "KilnPresentation", "KilnTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "KilnWebTests",
            dependencies: [
                "KilnWeb", "KilnServer", "KilnStore", "KilnGit", "KilnPresentation", "KilnTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["KilnCore", "KilnPresentation", "KilnStore", "KilnTestSupport", .product(name: "Crypto", package: "swift-crypto")]),
    ],
    swiftLanguageModes: [.v6]
)
