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

internal import CCurl

/// The process's libcurl: initialised once, before the first use.
public enum CurlLibrary {
    private static let initialized: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()

    /// Why libcurl cannot be opened (with the package to install), or nil when it can. libcurl is
    /// opened on first use, not when Kiln starts.
    public static var loadError: String? {
        kiln_curl_error().map { "cannot open libcurl (\(String(cString: $0))): install it with `apt-get install libcurl4`" }
    }

    public static func initialize() {
        _ = initialized
    }

    /// `duration` in whole milliseconds, as libcurl's `…_MS` options take it.
    public static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// The linked libcurl's version, such as `7.88.1`.
    public static var version: String {
        initialize()
        guard let info = kiln_curl_version_info(), let version = info.pointee.version else { return "unknown" }
        return String(cString: version)
    }

    /// The protocols this libcurl speaks; Kiln needs `smtp` and `smtps`.
    public static var protocols: Set<String> {
        initialize()
        guard let info = kiln_curl_version_info(), var cursor = info.pointee.protocols else { return [] }
        var names: Set<String> = []
        while let name = cursor.pointee {
            names.insert(String(cString: name))
            cursor += 1
        }
        return names
    }

    /// What every HTTP transfer of Kiln's sets on `handle`: no signals, HTTP(S) only, the
    /// connection's timeout, and where libcurl writes why it failed.
    static func prepareHTTP(_ handle: UnsafeMutableRawPointer, connectTimeout: Duration, errors: UnsafeMutablePointer<CChar>?) {
        kiln_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(connectTimeout))
        kiln_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        kiln_curl_setopt_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        kiln_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors)
    }

    /// Why a transfer that ended with `code` failed: libcurl's words in `errors`, else its
    /// description of the code.
    static func failure(_ code: CURLcode, errors: [CChar]) -> String {
        let buffered = String(decoding: errors.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered
    }
}
