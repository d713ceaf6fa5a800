/// Time left in words, never more than there is: whole minutes rounded down, seconds under a minute. At 3:06 left
/// every place says 3 minutes (it said 4: the minutes were rounded up), and 61 s is 1 minute.
public enum TakeTimeText {
    /// For sentences and prompts: "3 minutes", "1 minute", "45 seconds".
    public static func spoken(_ duration: Duration) -> String {
        let seconds = max(0, Int(duration.components.seconds))
        if seconds < 60 { return trn("{n} second", "{n} seconds", seconds) }
        return trn("{n} minute", "{n} minutes", seconds / 60)
    }

    /// A time limit as announced before it starts: "30 minutes", "1 min 30 s".
    public static func limit(_ seconds: Int) -> String {
        seconds % 60 == 0
            ? trn("{n} minute", "{n} minutes", seconds / 60) : tr("{minutes} min {seconds} s", ["minutes": seconds / 60, "seconds": seconds % 60])
    }

    /// For tables: "7 min", "40 s".
    public static func short(_ duration: Duration) -> String {
        let seconds = max(0, Int(duration.components.seconds))
        return seconds < 60 ? tr("{amount} s", ["amount": seconds]) : tr("{amount} min", ["amount": seconds / 60])
    }
}
