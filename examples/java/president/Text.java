package president;

import java.util.List;
import java.util.stream.Collectors;
import president.v1.President.Action;
import president.v1.President.Card;
import president.v1.President.Rank;

/** Cards and actions written as the engine writes them, for log lines. */
public final class Text {
    private Text() {}

    /** A rank as the engine writes it: "2" ... "10", "J", "Q", "K", "A", "JK". */
    public static String rank(Rank rank) {
        return switch (rank) {
            case RANK_TWO -> "2";
            case RANK_THREE -> "3";
            case RANK_FOUR -> "4";
            case RANK_FIVE -> "5";
            case RANK_SIX -> "6";
            case RANK_SEVEN -> "7";
            case RANK_EIGHT -> "8";
            case RANK_NINE -> "9";
            case RANK_TEN -> "10";
            case RANK_JACK -> "J";
            case RANK_QUEEN -> "Q";
            case RANK_KING -> "K";
            case RANK_ACE -> "A";
            case RANK_JOKER -> "JK";
            default -> "?";
        };
    }

    /** Cards as the engine writes them: "3C 3D JK". */
    public static String cards(List<Card> cards) {
        return cards.stream().map(Text::card).collect(Collectors.joining(" "));
    }

    private static String card(Card card) {
        String suit = switch (card.getSuit()) {
            case SUIT_CLUBS -> "C";
            case SUIT_DIAMONDS -> "D";
            case SUIT_HEARTS -> "H";
            case SUIT_SPADES -> "S";
            default -> ""; // a joker has no suit
        };
        return rank(card.getRank()) + suit;
    }

    /** An action for a log line: "play 3C 3D as 3", "pass", "give back 4H", "request AS". */
    public static String action(Action action) {
        return switch (action.getKindCase()) {
            case PLAY -> "play " + cards(action.getPlay().getCardsList()) + " as " + rank(action.getPlay().getRank())
                    + (action.getPlay().getDeclared() != Rank.RANK_UNSPECIFIED ? " (declared)" : "");
            case PASS_TURN -> "pass";
            case GIVE_BACK -> "give back " + cards(action.getGiveBack().getCardsList());
            case REQUEST -> action.getRequest().getCardsCount() > 0
                    ? "request " + cards(action.getRequest().getCardsList()) : "request nothing";
            default -> "no action";
        };
    }
}
