package president

import (
	"strings"

	pb "presidentpb/v1"
)

var rankText = map[pb.Rank]string{
	pb.Rank_RANK_TWO: "2", pb.Rank_RANK_THREE: "3", pb.Rank_RANK_FOUR: "4", pb.Rank_RANK_FIVE: "5",
	pb.Rank_RANK_SIX: "6", pb.Rank_RANK_SEVEN: "7", pb.Rank_RANK_EIGHT: "8", pb.Rank_RANK_NINE: "9",
	pb.Rank_RANK_TEN: "10", pb.Rank_RANK_JACK: "J", pb.Rank_RANK_QUEEN: "Q", pb.Rank_RANK_KING: "K",
	pb.Rank_RANK_ACE: "A", pb.Rank_RANK_JOKER: "JK",
}

var suitText = map[pb.Suit]string{
	pb.Suit_SUIT_CLUBS: "C", pb.Suit_SUIT_DIAMONDS: "D", pb.Suit_SUIT_HEARTS: "H", pb.Suit_SUIT_SPADES: "S",
}

// CardsText writes cards as the engine does: "3C 3D JK".
func CardsText(cards []*Card) string {
	words := make([]string, len(cards))
	for i, c := range cards {
		words[i] = rankText[c.GetRank()] + suitText[c.GetSuit()]
	}
	return strings.Join(words, " ")
}

// ActionText writes an action for a log line: "play 3C 3D as 3", "pass", "give back 4H", "request AS".
func ActionText(a *Action) string {
	switch {
	case a.GetPlay() != nil:
		play := a.GetPlay()
		text := "play " + CardsText(play.GetCards()) + " as " + rankText[play.GetRank()]
		if play.GetDeclared() != pb.Rank_RANK_UNSPECIFIED {
			text += " (declared)"
		}
		return text
	case a.GetPassTurn() != nil:
		return "pass"
	case a.GetGiveBack() != nil:
		return "give back " + CardsText(a.GetGiveBack().GetCards())
	case a.GetRequest() != nil:
		if cards := a.GetRequest().GetCards(); len(cards) > 0 {
			return "request " + CardsText(cards)
		}
		return "request nothing"
	}
	return "no action"
}
