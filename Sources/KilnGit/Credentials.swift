internal import CGit2
import Foundation
import KilnCore

/// What libgit2's credentials callback may use for one remote operation.
///
/// Created for one call and confined to its thread; libgit2 reaches it through the callbacks' payload.
final class Credentials {
    let user: String?
    let password: String?
    /// The host the password belongs to: a submodule on another host never receives it.
    let host: String?
    let sshKeyFile: String?
    /// libgit2 asks again after every rejected attempt: stop after a few.
    var attempts = 0
    static let maximumAttempts = 3

    init(url: RepositoryURL, sshKeyFile: String?) {
        let components = URLComponents(string: url.raw)
        var user = components?.user?.removingPercentEncoding
        if user == nil, url.scheme == .ssh, !url.raw.contains("://"), let at = url.raw.firstIndex(of: "@") {
            user = String(url.raw[..<at])
        }
        self.user = user
        self.password = components?.password?.removingPercentEncoding
        self.host = url.host
        self.sshKeyFile = sshKeyFile
    }

    /// Remote callbacks that answer credential requests from this object. Keep `self` alive
    /// for as long as the callbacks are in use.
    func callbacks() -> git_remote_callbacks {
        var callbacks = git_remote_callbacks()
        git_remote_init_callbacks(&callbacks, UInt32(GIT_REMOTE_CALLBACKS_VERSION))
        callbacks.payload = Unmanaged.passUnretained(self).toOpaque()
        callbacks.credentials = { out, url, usernameFromURL, allowedTypes, payload in
            guard let out, let payload else { return GIT_EAUTH.rawValue }
            let credentials = Unmanaged<Credentials>.fromOpaque(payload).takeUnretainedValue()
            let host = url.flatMap { URLComponents(string: String(cString: $0))?.host?.lowercased() }
            return credentials.acquire(
                out, host: host, usernameFromURL: usernameFromURL.map { String(cString: $0) }, allowed: allowedTypes)
        }
        return callbacks
    }

    private func acquire(
        _ out: UnsafeMutablePointer<UnsafeMutablePointer<git_credential>?>, host: String?, usernameFromURL: String?, allowed: UInt32
    ) -> Int32 {
        attempts += 1
        guard attempts <= Self.maximumAttempts else {
            git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "authentication failed: the credentials were refused")
            return GIT_EAUTH.rawValue
        }
        let user = usernameFromURL ?? self.user
        if allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT.rawValue != 0, let user, let password, host == self.host {
            return git_credential_userpass_plaintext_new(out, user, password)
        }
        if allowed & GIT_CREDENTIAL_SSH_KEY.rawValue != 0, let sshKeyFile {
            return git_credential_ssh_key_new(out, user ?? "git", nil, sshKeyFile, nil)
        }
        if allowed & GIT_CREDENTIAL_USERNAME.rawValue != 0 {
            return git_credential_username_new(out, user ?? "git")
        }
        git_error_set_str(Int32(GIT_ERROR_NET.rawValue), "authentication required and no credentials are configured")
        return GIT_EAUTH.rawValue
    }
}
