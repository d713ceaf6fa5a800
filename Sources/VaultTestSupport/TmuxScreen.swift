import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real terminal emulator for what a student sees: a detached tmux session of its own (its own server socket, so
/// tests never meet each other or a developer's tmux) running a shell, typed into with `send-keys`, read with
/// `capture-pane` as the rows a person would see. Killed when the value goes away.
public final class TmuxScreen: @unchecked Sendable {
    private let socket: String
    public let directory: TemporaryDirectory

    /// A shell in a `columns` x `rows` terminal, with a plain prompt (`$ `) and `environment` exported (a variable
    /// given as nil is unset: `["NO_COLOR": nil]` for colour).
    public init(columns: Int = 80, rows: Int = 24, environment: [String: String?] = [:]) throws {
        directory = TemporaryDirectory("tmux")
        socket = directory.file("socket")
        var exports: [String: String?] = [
            "PS1": "$ ", "NO_COLOR": "1", "TERM": "xterm", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
        exports.merge(environment) { $1 }
        let profile = directory.file("profile")
        let lines = exports.sorted { $0.key < $1.key }.map { entry in entry.value.map { "export \(entry.key)='\($0)'" } ?? "unset \(entry.key)" }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: profile))
        try shell("/usr/bin/tmux -S '\(socket)' new-session -d -x \(columns) -y \(rows) -s test 'bash --noprofile --rcfile \(profile) -i'")
        _ = try waitFor("$")  // capture-pane drops the space after the prompt
    }

    deinit { _ = try? tmux(["kill-server"]) }

    /// Types `text` literally (no key names), then Enter when `enter`.
    public func type(_ text: String, enter: Bool = true) throws {
        if !text.isEmpty { try tmux(["send-keys", "-t", "test", "-l", text]) }
        if enter { try tmux(["send-keys", "-t", "test", "Enter"]) }
    }

    /// Presses named keys (`C-c`, `Enter`, `Left`).
    public func press(_ keys: String...) throws { try tmux(["send-keys", "-t", "test"] + keys) }

    /// From now on, every byte the program in the terminal writes is appended to `file` (tmux's pipe-pane).
    public func record(to file: String) throws { try tmux(["pipe-pane", "-t", "test", "-o", "cat >> '\(file)'"]) }

    /// The screen's rows as a person sees them now.
    public func rows() throws -> [String] {
        try tmux(["capture-pane", "-p", "-t", "test"]).components(separatedBy: "\n")
    }

    /// Waits until some row holds `marker`; returns the rows.
    @discardableResult
    public func waitFor(_ marker: String, timeout: Duration = .seconds(20)) throws -> [String] {
        try waitUntil(marker, timeout: timeout) { rows in rows.contains { $0.contains(marker) } }
    }

    /// Waits until the rows satisfy `holds` (a screen that must also have lost something, which `waitFor` cannot
    /// tell from the screen before the keys were read); `described` names it in the timeout's message.
    @discardableResult
    public func waitUntil(_ described: String, timeout: Duration = .seconds(20), _ holds: ([String]) -> Bool) throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let rows = try rows()
            if holds(rows) { return rows }
            if ContinuousClock.now > deadline { throw PseudoTerminalTimeout(marker: described, seen: rows.joined(separator: "\n")) }
            usleep(100_000)
        }
    }

    /// The process id of the newest process named `name` in the session (the program the shell runs).
    public func pid(of name: String) throws -> pid_t? {
        let panes = try tmux(["list-panes", "-t", "test", "-F", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let children = try shell("/usr/bin/pgrep -n -P \(panes) '\(name)'")
        return pid_t(children.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try shell("/usr/bin/tmux -S '\(socket)' \(quoted)")
    }

    /// Runs `command` with sh, its output in a file (tmux's server outlives the command and must hold no pipe of
    /// ours), reaped here with waitpid (Foundation's `Process` did not see these children end).
    @discardableResult
    private func shell(_ command: String) throws -> String {
        let output = directory.file("output")
        let arguments = ["/bin/sh", "-c", command + " </dev/null >'\(output)' 2>&1"]
        var pid: pid_t = 0
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ) == 0 else { throw POSIXError(.ECHILD) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}
