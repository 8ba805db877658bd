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
import Dispatch
import Foundation
import KilnCore

/// Sends one message over SMTP with libcurl: `smtp://` upgraded with STARTTLS when offered (or
/// required), `smtps://`, AUTH with a user name and password, connect and total timeouts.
///
/// libcurl blocks, so each send runs on a Dispatch thread, never on the cooperative pool. A handle
/// is made per send: mail is rare and a fresh connection survives a restarted SMTP server.
public struct SMTPClient: Sendable {
    public var url: String
    public var username: String?
    public var password: String?
    public var starttls: SMTPSettings.StartTLS
    public var caFile: String?
    public var connectTimeout: Duration
    public var totalTimeout: Duration

    public init(
        url: String, username: String? = nil, password: String? = nil, starttls: SMTPSettings.StartTLS = .optional, caFile: String? = nil,
        connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(60)
    ) {
        self.url = url
        self.username = username
        self.password = password
        self.starttls = starttls
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
    }

    /// A client for the server config's `smtp` settings, reading the password file.
    public init(settings: SMTPSettings) throws(MailError) {
        var password: String?
        if let file = settings.passwordFile {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw .loginDenied(server: settings.url, detail: "cannot read the password file \(file)")
            }
            password = text.trimmingCharacters(in: .newlines)
        }
        self.init(url: settings.url, username: settings.username, password: password, starttls: settings.starttls, caFile: settings.caFile)
    }

    /// Sends `message` (a whole RFC 5322 message) from `sender` to `recipients`. A recipient the
    /// server refuses does not stop the others; all of them refused is an error.
    public func send(_ message: [UInt8], from sender: String, to recipients: [String]) async throws(MailError) {
        let result: Result<Void, MailError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: self.sendBlocking(message, from: sender, to: recipients))
            }
        }
        try result.get()
    }

    private final class Upload {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    private func sendBlocking(_ message: [UInt8], from sender: String, to recipients: [String]) -> Result<Void, MailError> {
        CurlLibrary.initialize()
        guard let handle = curl_easy_init() else { return .failure(.failed(curlCode: -1, detail: "curl_easy_init failed")) }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        for recipient in recipients { list = curl_slist_append(list, "<\(recipient)>") }
        defer { curl_slist_free_all(list) }
        let upload = Upload(message)
        let box = Unmanaged.passRetained(upload)
        defer { box.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            kiln_curl_setopt_string(handle, CURLOPT_URL, url)
            kiln_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(sender)>")
            kiln_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, list)
            kiln_curl_setopt_long(handle, CURLOPT_MAIL_RCPT_ALLLOWFAILS, 1)
            kiln_curl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            kiln_curl_setopt_long(handle, CURLOPT_INFILESIZE, message.count)
            kiln_curl_setopt_pointer(handle, CURLOPT_READDATA, box.toOpaque())
            kiln_curl_setopt_read_function(handle) { buffer, size, count, userdata in
                guard let buffer, let userdata else { return 0 }
                let upload = Unmanaged<Upload>.fromOpaque(userdata).takeUnretainedValue()
                let length = min(size * count, upload.bytes.count - upload.offset)
                upload.bytes.withUnsafeBufferPointer { source in
                    guard let base = source.baseAddress else { return }
                    UnsafeMutableRawPointer(buffer).copyMemory(from: base + upload.offset, byteCount: length)
                }
                upload.offset += length
                return length
            }
            if url.lowercased().hasPrefix("smtp://") {
                let level = starttls == .required ? CURLUSESSL_ALL : CURLUSESSL_TRY
                kiln_curl_setopt_long(handle, CURLOPT_USE_SSL, Int(level.rawValue))
            }
            if let username { kiln_curl_setopt_string(handle, CURLOPT_USERNAME, username) }
            if let password { kiln_curl_setopt_string(handle, CURLOPT_PASSWORD, password) }
            if let caFile { kiln_curl_setopt_string(handle, CURLOPT_CAINFO, caFile) }
            kiln_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, CurlLibrary.milliseconds(connectTimeout))
            kiln_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, CurlLibrary.milliseconds(totalTimeout))
            kiln_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            kiln_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
            return curl_easy_perform(handle)
        }
        guard code != CURLE_OK else { return .success(()) }
        var response = 0
        kiln_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &response)
        let buffered = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let detail = buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered
        return .failure(Self.error(code: code, response: response, detail: detail, server: Self.redacted(url)))
    }

    static func error(code: CURLcode, response: Int, detail: String, server: String) -> MailError {
        switch code {
        case CURLE_LOGIN_DENIED: return .loginDenied(server: server, detail: detail)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_OPERATION_TIMEDOUT, CURLE_GOT_NOTHING, CURLE_RECV_ERROR:
            if (400..<600).contains(response) { return .rejected(code: response, detail: detail) }
            return .unreachable(server: server, detail: detail)
        case CURLE_USE_SSL_FAILED, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE:
            return .insecure(server: server, detail: detail)
        default:
            if (400..<600).contains(response) { return .rejected(code: response, detail: detail) }
            return .failed(curlCode: Int(code.rawValue), detail: detail)
        }
    }

    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.user = nil
        components.password = nil
        return components.string ?? url
    }
}
