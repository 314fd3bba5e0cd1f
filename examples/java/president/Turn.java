package president;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import president.v1.President.Action;
import president.v1.President.Observation;
import president.v1.President.Rank;
import president.v1.President.Rules;

/**
 * What a bot decides on.
 *
 * @param matchId the match
 * @param player the bot's player index
 * @param names display names, by player
 * @param rules the match's effective rules
 * @param id the turn id
 * @param obs what the bot's player sees: its hand, hand sizes, the table, the trick, the rank order now...
 * @param legal every legal action in the engine's order: plays weakest first and pass last; give-backs worst cards
 *     first; requests naming nothing first, then by size, best cards first within a size
 * @param deadline the last moment an answer is accepted; null without a clock
 */
public record Turn(String matchId, int player, List<String> names, Rules rules, long id, Observation obs,
        List<Action> legal, Instant deadline) {

    /** The legal plays, weakest first in the current rank order. */
    public List<Action> plays() {
        return legal.stream().filter(Action::hasPlay).toList();
    }

    /** The weakest legal play (fewest cards among equals), or empty when no play is legal. */
    public Optional<Action> lowestPlay() {
        return legal.stream().filter(Action::hasPlay).findFirst();
    }

    /** The legal pass, or empty when passing is not legal (a trick's leader must play). */
    public Optional<Action> pass() {
        return legal.stream().filter(Action::hasPassTurn).findFirst();
    }

    /** Whether passing is legal now. */
    public boolean canPass() {
        return pass().isPresent();
    }

    /** How many cards a player holds now (0 for a player the match does not have). */
    public int cardsLeft(int player) {
        List<Integer> sizes = obs.getHandSizesList();
        return player >= 0 && player < sizes.size() ? sizes.get(player) : 0;
    }

    /** The strongest rank now (the rank order is reversed after a revolution); jokers aside. */
    public Rank topRank() {
        List<Rank> order = obs.getRankOrderList();
        return order.get(order.size() - 1);
    }
}
