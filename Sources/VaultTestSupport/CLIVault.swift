import Foundation

/// A temporary vault directory driven through the real `vault` binary.
public final class CLIVault: @unchecked Sendable {
    public init() {}

    public let root = TemporaryDirectory("vault-cli")
    public var path: String { root.file("v") }

    @discardableResult
    public func run(_ arguments: [String], stdin: String = "", environment: [String: String] = [:]) throws -> Binaries.Result {
        try Binaries.run("vault", arguments, stdin: stdin, environment: environment)
    }

    /// `vault <arguments> --vault DIR --password-stdin`, the password on stdin.
    @discardableResult
    public func unlocked(
        _ arguments: [String],
        password: String = "pw-1",
        extraInput: String = "",
        environment: [String: String] = [:]
    ) throws -> Binaries.Result {
        try run(arguments + ["--vault", path, "--password-stdin"], stdin: password + "\n" + extraInput, environment: environment)
    }

    /// `vault answer ID QUESTION` with the value on stdin after the password line, as the CLI contract says.
    public func answer(
        _ id: String,
        _ question: String,
        _ value: String,
        password: String = "pw-1",
        environment: [String: String] = [:]
    ) throws -> Binaries.Result {
        try unlocked(["answer", id, question], password: password, extraInput: value + "\n", environment: environment)
    }

    /// `vault <arguments> --vault DIR --password-stdin` under strace recording the system calls `calls` (buffers in
    /// full hex); the result and the trace. Without `password`, no password source is named (a session key is used).
    public func traced(_ arguments: [String], calls: String, input: String = "", password: Bool = true) throws -> (Binaries.Result, String) {
        let trace = root.file("trace-\(UUID().uuidString).txt")
        let result = try Binaries.run(
            "/usr/bin/strace",
            ["-f", "-qq", "-xx", "-s", "65536", "-e", "trace=\(calls)", "-o", trace, Binaries.directory + "/vault"] + arguments
                + ["--vault", path] + (password ? ["--password-stdin"] : []),
            stdin: (password ? "pw-1\n" : "") + input
        )
        return (result, (try? String(contentsOfFile: trace, encoding: .utf8)) ?? "")
    }

    @discardableResult
    public func initialize(password: String = "pw-1") throws -> Binaries.Result {
        try run(["init", "--vault", path, "--kdf-iterations", "1000", "--new-password-stdin"], stdin: password + "\n")
    }

    public func snapshot() -> [String: Data] { TestVault.snapshot(path) }
}
