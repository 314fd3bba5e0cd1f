package president;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.stream.Collectors;
import president.v1.President.MatchResult;

/** The kit's lines: progress on stdout, problems on stderr, moves with --verbose. */
final class Log {
    private final PrintStream out;
    private final PrintStream err;
    private final boolean moves;
    private final boolean session;

    Log(PrintStream out, PrintStream err, boolean moves, boolean session) {
        this.out = out;
        this.err = err;
        this.moves = moves;
        this.session = session;
    }

    void info(String format, Object... args) {
        out.println("[java-bot] " + String.format(format, args));
    }

    void error(String format, Object... args) {
        err.println("java-bot: " + String.format(format, args));
    }

    void verbose(String format, Object... args) {
        if (moves) {
            info(format, args);
        }
    }

    /** A seat in a log line: "p2", or "match m1 p2" on a Session. */
    String where(Seat s) {
        return session ? "match " + s.matchId + " p" + s.player : "p" + s.player;
    }

    /** A finished match's result: "winner bot (player 1), totals 1,4,2,3". */
    String result(Seat s) {
        MatchResult r = s.result;
        String winner = "player " + r.getWinner();
        if (r.getWinner() < s.names.size()) {
            String name = s.names.get(r.getWinner());
            if (!name.isEmpty() && !name.equals(winner)) {
                winner = name + " (" + winner + ")";
            }
        }
        return "winner " + winner + ", totals "
                + r.getTotalsList().stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** A count with its noun in the right number: "1 match", "3 matches". */
    static String counted(int n, String noun) {
        if (n == 1) {
            return "1 " + noun;
        }
        return n + " " + noun + (noun.endsWith("ch") ? "es" : "s");
    }

    /** A wait as a person reads it: "0.2 s", "8 s". */
    static String seconds(Duration wait) {
        return BigDecimal.valueOf(wait.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
    }
}
