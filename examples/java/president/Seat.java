package president;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import president.v1.President.Act;
import president.v1.President.MatchResult;
import president.v1.President.Prompt;
import president.v1.President.Rules;

/** One match's side of the seat protocol: the same messages come on a Play stream and in a Session. */
final class Seat {
    /** How many recent turns a seat remembers: a prompt repeated after a resume, or a late refusal, finds its act. */
    static final int PROMPTS_KEPT = 8;

    String matchId;
    int player;
    List<String> names = List.of();
    Rules rules = Rules.getDefaultInstance();
    long lastSeq; // the last event seen: where a new connection resumes
    final Map<Long, Prompt> prompts = new HashMap<>(); // by turn id
    final Map<Long, Act> answered = new HashMap<>(); // the act sent for each turn
    final Map<Long, Integer> sentOn = new HashMap<>(); // the connection each act went out on
    final Map<Long, Decision> deciding = new HashMap<>(); // turns the bot is deciding
    final Set<Long> retried = new HashSet<>(); // turns whose refused act was replaced once
    int accepted;
    int rejected;
    MatchResult result;

    Seat(String matchId) {
        this.matchId = matchId;
    }

    /** Forgets the turns too old to be asked again before {@code turn}. */
    void forgetBefore(long turn) {
        prompts.keySet().removeIf(old -> old + PROMPTS_KEPT <= turn);
        answered.keySet().removeIf(old -> old + PROMPTS_KEPT <= turn);
        sentOn.keySet().removeIf(old -> old + PROMPTS_KEPT <= turn);
        retried.removeIf(old -> old + PROMPTS_KEPT <= turn);
    }
}
