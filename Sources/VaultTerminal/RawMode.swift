#if canImport(Glibc)
import Glibc
#endif

/// The terminal on standard input with line editing and echo off, so the program reads each key as it is typed
/// (`KeyDecoder`, `LineEditor`). Signals stay on (Ctrl-C is still SIGINT), and output is processed as usual (a
/// newline still returns the carriage). `restore()` puts back exactly the settings found, and discards whatever was
/// typed and not read, so it never reaches the shell after the program ends.
public final class RawMode: @unchecked Sendable {
    private var original = termios()
    private var active = false

    /// Switches standard input to raw mode; nil when it is not a terminal.
    public init?() {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
        active = true
    }

    /// The terminal as it was found, with unread input discarded. Safe to call more than once.
    public func restore() {
        guard active else { return }
        active = false
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    deinit { restore() }
}
