import ArgumentParser
import Foundation
import VaultCore
import VaultLanguage

#if canImport(Glibc)
import Glibc
import VaultModel
#endif

/// Flags that choose where passwords come from. Never a password itself: it is never an argument.
struct CredentialSources: ParsableArguments {
    @Flag(help: ArgumentHelp(tr("Read the vault password from the first line of stdin.")))
    var passwordStdin = false

    @Flag(help: ArgumentHelp(tr("Read the new password from a line of stdin (after the current one when both are on stdin).")))
    var newPasswordStdin = false
}

/// Reads passwords into wiped buffers: stdin line, a file named by an environment variable, or a no-echo prompt.
enum PasswordReader {
    static let maxLength = 4096

    static func current(_ options: CredentialSources, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SecretBytes {
        try read(
            fromStdin: options.passwordStdin,
            fileVariable: "VAULT_PASSWORD_FILE",
            environment: environment,
            prompt: tr("Vault password:") + " ",
            confirm: false,
            flag: "--password-stdin"
        )
    }

    /// True when `$VAULT_PASSWORD_FILE` names no password file.
    static func fileVariableUnset(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        environment["VAULT_PASSWORD_FILE"]?.isEmpty ?? true
    }

    static func new(_ options: CredentialSources, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> SecretBytes {
        try read(
            fromStdin: options.newPasswordStdin,
            fileVariable: "VAULT_NEW_PASSWORD_FILE",
            environment: environment,
            prompt: tr("New password:") + " ",
            confirm: true,
            flag: "--new-password-stdin"
        )
    }

    /// A code given on paper (a sealed exam's start code, a package's slip code), read as a password is (never
    /// echoed, never an argument) from a line of stdin after the vault password, the file `fileVariable` names, or a
    /// prompt; as text, since it is checked by the vault's own derivation rather than kept.
    static func code(fromStdin: Bool, fileVariable: String, prompt: String, flag: String) throws -> String {
        let code = try read(
            fromStdin: fromStdin,
            fileVariable: fileVariable,
            environment: ProcessInfo.processInfo.environment,
            prompt: prompt,
            confirm: false,
            flag: flag
        )
        return code.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    static func read(
        fromStdin: Bool,
        fileVariable: String,
        environment: [String: String],
        prompt: String,
        confirm: Bool,
        flag: String
    ) throws -> SecretBytes {
        if fromStdin {
            guard let line = try readLine(descriptor: STDIN_FILENO) else {
                throw VaultError(.passwordRequired, tr("No password was given on standard input."))
            }
            return line
        }
        if let path = environment[fileVariable], !path.isEmpty {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw VaultError(.passwordRequired, tr("The password file named by {variable} cannot be read.", ["variable": fileVariable]))
            }
            defer { close(descriptor) }
            guard let line = try readLine(descriptor: descriptor) else {
                throw VaultError(.passwordRequired, tr("The password file named by {variable} is empty.", ["variable": fileVariable]))
            }
            return line
        }
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard terminal >= 0, isatty(terminal) == 1 else {
            if terminal >= 0 { close(terminal) }
            throw VaultError(
                .passwordRequired,
                tr(
                    "A password is needed and there is no terminal to ask for it. Use {flag} or set {file_variable}.",
                    ["flag": flag, "file_variable": fileVariable]
                )
            )
        }
        defer { close(terminal) }
        let first = try prompted(prompt, terminal: terminal)
        if confirm {
            let second = try prompted(tr("Repeat it:") + " ", terminal: terminal)
            guard first.isEqual(to: second) else {
                throw VaultError(.usage, tr("The two passwords are different. Nothing was changed; try again."))
            }
        }
        return first
    }

    /// Reads one line without echo from the terminal.
    private static func prompted(_ prompt: String, terminal: Int32) throws -> SecretBytes {
        _ = prompt.withCString { write(terminal, $0, strlen($0)) }
        var saved = termios()
        tcgetattr(terminal, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(terminal, TCSAFLUSH, &silent)
        defer {
            tcsetattr(terminal, TCSAFLUSH, &saved)
            _ = write(terminal, "\n", 1)
        }
        guard let line = try readLine(descriptor: terminal) else {
            throw VaultError(.passwordRequired, tr("No password was entered."))
        }
        return line
    }

    /// One line, byte by byte, so the rest of stdin stays for what follows (a second password, an essay).
    ///
    /// A line longer than `maxLength` is refused, never cut: a cut would make a different password of it and leave
    /// its rest to be read as the next input (the new password, an answer).
    static func readLine(descriptor: Int32) throws -> SecretBytes? {
        var length = 0
        var sawAnything = false
        var tooLong = false
        let buffer = SecretBytes(count: maxLength) { bytes in
            var byte: UInt8 = 0
            while true {
                let count = Glibc.read(descriptor, &byte, 1)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                sawAnything = true
                if byte == 0x0A { break }
                guard length < maxLength else {
                    tooLong = true
                    break
                }
                bytes[length] = byte
                length += 1
            }
            byte = 0
        }
        if tooLong {
            throw VaultError(
                .usage,
                tr(
                    "That line is longer than {max_length} bytes, the longest password the vault accepts. Nothing was changed; use a shorter password.",
                    ["max_length": maxLength]
                )
            )
        }
        guard sawAnything else { return nil }
        return buffer.prefix(length).trimmingTrailingNewlines()
    }
}
