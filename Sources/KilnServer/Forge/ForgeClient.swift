internal import CCurl
import Dispatch
import Foundation
import KilnCore
import KilnMail

/// Posts commit statuses to GitHub, GitLab and Gitea (Forgejo) over libcurl, each the way its
/// API documents:
///
/// | forge | endpoint | auth header |
/// |---|---|---|
/// | GitHub | `POST {api}/repos/{owner}/{repo}/statuses/{sha}` | `Authorization: Bearer <token>` |
/// | GitLab | `POST {api}/projects/{url-encoded path}/statuses/{sha}` | `PRIVATE-TOKEN: <token>` |
/// | Gitea | `POST {api}/repos/{owner}/{repo}/statuses/{sha}` | `Authorization: token <token>` |
///
/// libcurl blocks, so each post runs on a Dispatch thread, never on the cooperative pool.
public struct ForgeClient: Sendable {
    public var connectTimeout: Duration
    public var totalTimeout: Duration

    public init(connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30)) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
    }

    /// How a forge answered a status.
    public enum Answer: Sendable, Equatable {
        /// It took it (2xx).
        case delivered(code: Int)
        /// It refused it for a reason that another attempt will not change: a bad token (401,
        /// 403), an unknown repository or commit (404), an invalid status (422).
        case refused(code: Int, message: String)
        /// It could not be reached or failed (5xx, 429, timeouts): worth trying again.
        case failed(code: Int?, message: String)
    }

    /// One HTTP request as it goes out.
    struct Request: Equatable {
        var url: String
        var headers: [String]
        var body: [UInt8]
    }

    public func post(_ status: CommitStatus, token: String) async -> Answer {
        let request = Self.request(for: status, token: token)
        return await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: Self.answer(to: status, self.perform(request)))
            }
        }
    }

    /// The request `status` makes on its forge.
    static func request(for status: CommitStatus, token: String) -> Request {
        let api = status.apiURL.hasSuffix("/") ? String(status.apiURL.dropLast()) : status.apiURL
        var body: [String: String] = ["description": status.description]
        if let target = status.targetURL { body["target_url"] = target }
        let url: String
        var headers = ["Content-Type: application/json", "Accept: application/json", "User-Agent: kiln"]
        switch status.kind {
        case .github:
            url = "\(api)/repos/\(status.project)/statuses/\(status.sha)"
            headers += ["Authorization: Bearer \(token)", "Accept: application/vnd.github+json"]
            body["state"] = status.state == .running ? "pending" : status.state.rawValue
            body["context"] = status.context
        case .gitea:
            url = "\(api)/repos/\(status.project)/statuses/\(status.sha)"
            headers.append("Authorization: token \(token)")
            body["state"] = status.state == .running ? "pending" : status.state.rawValue
            body["context"] = status.context
        case .gitlab:
            let project =
                status.project.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
                ?? status.project
            url = "\(api)/projects/\(project)/statuses/\(status.sha)"
            headers.append("PRIVATE-TOKEN: \(token)")
            body["state"] =
                switch status.state {
                case .pending: "pending"
                case .running: "running"
                case .success: "success"
                case .failure, .error: "failed"
                }
            body["name"] = status.context
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Request(url: url, headers: headers, body: Array((try? encoder.encode(body)) ?? Data()))
    }

    /// What the forge's HTTP answer means for `status`.
    static func answer(to status: CommitStatus, _ response: (code: Int?, body: [UInt8], error: String?)) -> Answer {
        guard let code = response.code, code > 0 else { return .failed(code: nil, message: response.error ?? "no answer") }
        let message = Self.message(in: response.body) ?? "HTTP \(code)"
        switch code {
        case 200..<300: return .delivered(code: code)
        // GitLab refuses a status its commit already has ("Cannot transition status via :run from
        // :running"): the forge shows what it was told, which is delivered enough.
        case 400 where status.kind == .gitlab && message.contains("Cannot transition status"): return .delivered(code: code)
        case 408, 429: return .failed(code: code, message: message)
        case 400..<500: return .refused(code: code, message: message)
        default: return .failed(code: code, message: message)
        }
    }

    /// The forge's own words: GitHub's and Gitea's `message`, GitLab's `message` or `error`.
    static func message(in body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] {
            for key in ["message", "error"] {
                if let text = object[key] as? String { return text }
                if let nested = object[key], JSONSerialization.isValidJSONObject(nested),
                    let data = try? JSONSerialization.data(withJSONObject: nested, options: [.sortedKeys])
                {
                    return String(decoding: data, as: UTF8.self)
                }
            }
        }
        let text = String(decoding: body.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    private final class Collected {
        var bytes: [UInt8] = []
    }

    private func perform(_ request: Request) -> (code: Int?, body: [UInt8], error: String?) {
        CurlLibrary.initialize()
        guard let handle = curl_easy_init() else { return (nil, [], "curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>?
        for header in request.headers { headers = curl_slist_append(headers, header) }
        defer { curl_slist_free_all(headers) }
        let collected = Collected()
        let box = Unmanaged.passRetained(collected)
        defer { box.release() }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            request.body.withUnsafeBufferPointer { body in
                kiln_curl_setopt_string(handle, CURLOPT_URL, request.url)
                kiln_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
                kiln_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
                kiln_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: body.baseAddress))
                kiln_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, box.toOpaque())
                kiln_curl_setopt_write_function(handle) { data, size, count, userdata in
                    guard let data, let userdata else { return 0 }
                    let collected = Unmanaged<Collected>.fromOpaque(userdata).takeUnretainedValue()
                    let length = size * count
                    // Forges answer in a few hundred bytes; more is not kept.
                    if collected.bytes.count < 64 * 1024 {
                        collected.bytes += UnsafeRawBufferPointer(start: data, count: length).prefix(64 * 1024 - collected.bytes.count)
                    }
                    return length
                }
                kiln_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, CurlLibrary.milliseconds(connectTimeout))
                kiln_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, CurlLibrary.milliseconds(totalTimeout))
                kiln_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
                kiln_curl_setopt_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
                kiln_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
                return curl_easy_perform(handle)
            }
        }
        var response = 0
        kiln_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &response)
        guard code == CURLE_OK else {
            let buffered = errorBuffer.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
            return (response > 0 ? response : nil, collected.bytes, buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered)
        }
        return (response, collected.bytes, nil)
    }
}
