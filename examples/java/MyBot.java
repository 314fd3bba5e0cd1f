import java.util.Comparator;
import president.Bot;
import president.Turn;
import president.v1.President.Action;
import president.v1.President.Phase;

/**
 * The whole bot: given its turn, it returns one of the legal actions. Replace choose with your own.
 *
 * <p>It names the best cards it may in a Norwegian request, gives back its worst cards, plays the weakest play
 * that keeps the top rank in hand, and passes rather than spend the top rank while it can.
 */
public final class MyBot implements Bot {
    @Override
    public Action choose(Turn turn) {
        Phase phase = turn.obs().getPhase();
        if (phase == Phase.PHASE_REQUEST) { // the first request of the largest size names the best cards
            Comparator<Action> size = Comparator.comparingInt(a -> a.getRequest().getCardsCount());
            return turn.legal().stream().max(size).orElseThrow();
        }
        if (phase == Phase.PHASE_GIVE_BACK) {
            return turn.legal().get(0); // give-backs come worst cards first
        }
        for (Action play : turn.plays()) { // weakest first
            if (play.getPlay().getRank() != turn.topRank()) {
                return play;
            }
        }
        return turn.pass().or(turn::lowestPlay).orElseThrow();
    }
}
