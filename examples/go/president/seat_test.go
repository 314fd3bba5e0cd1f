package president

import (
	"io"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	pb "presidentpb/v1"
)

var quiet = &logger{out: io.Discard, err: io.Discard}

func play(rank pb.Rank, suits ...pb.Suit) *Action {
	cards := make([]*Card, len(suits))
	for i, suit := range suits {
		cards[i] = &Card{Rank: rank, Suit: suit}
	}
	return &Action{Kind: &pb.Action_Play{Play: &pb.PlayAction{Cards: cards, Rank: rank}}}
}

var pass = &Action{Kind: &pb.Action_PassTurn{PassTurn: &pb.PassAction{}}}

func following() *Turn {
	return &Turn{
		ID:    7,
		Obs:   &Observation{HandSizes: []uint32{5, 3, 0, 8}, RankOrder: []Rank{pb.Rank_RANK_THREE, pb.Rank_RANK_TWO}},
		Legal: []*Action{play(pb.Rank_RANK_FIVE, pb.Suit_SUIT_CLUBS), play(pb.Rank_RANK_TWO, pb.Suit_SUIT_HEARTS), pass},
	}
}

// stuck is a bot that answers only when released: a bot too slow for any deadline.
type stuck struct{ release chan struct{} }

func (s stuck) Choose(t *Turn) *Action {
	<-s.release
	return t.Legal[1]
}

func TestHelpersReadTheLegalActionsInTheirOrder(t *testing.T) {
	turn := following()
	if got := ActionText(turn.LowestPlay()); got != "play 5C as 5" {
		t.Errorf("LowestPlay: %s", got)
	}
	if !turn.CanPass() || turn.Pass() != pass || len(turn.Plays()) != 2 {
		t.Errorf("CanPass %v, Pass %v, Plays %d", turn.CanPass(), turn.Pass(), len(turn.Plays()))
	}
	if turn.CardsLeft(1) != 3 || turn.CardsLeft(9) != 0 || turn.TopRank() != pb.Rank_RANK_TWO {
		t.Errorf("CardsLeft(1) %d, CardsLeft(9) %d, TopRank %v", turn.CardsLeft(1), turn.CardsLeft(9), turn.TopRank())
	}
	leading := &Turn{Legal: []*Action{play(pb.Rank_RANK_FOUR, pb.Suit_SUIT_SPADES)}}
	if leading.CanPass() || leading.Pass() != nil {
		t.Error("a leader may not pass")
	}
}

func TestTheBotsOwnLegalAnswerIsSent(t *testing.T) {
	turn := following()
	action, fault := decide(BotFunc(func(t *Turn) *Action { return t.Legal[2] }), &sync.Mutex{}, turn, nil, quiet)
	if action != pass || fault != pb.BotFault_BOT_FAULT_UNSPECIFIED {
		t.Errorf("got %s, %v", ActionText(action), fault)
	}
}

func TestASlowBotIsAnsweredForBeforeTheDeadline(t *testing.T) {
	bot := stuck{release: make(chan struct{})}
	defer close(bot.release)
	turn := following()
	turn.Deadline = time.Now().Add(2 * time.Second)
	action, fault := decide(bot, &sync.Mutex{}, turn, nil, quiet)
	if time.Now().After(turn.Deadline) {
		t.Errorf("answered %v after the deadline", time.Since(turn.Deadline))
	}
	if action != turn.Legal[0] || fault != pb.BotFault_BOT_FAULT_TIMEOUT {
		t.Errorf("got %s, %v", ActionText(action), fault)
	}
}

func TestATurnDeadlineBoundsTheDecisionUnderWay(t *testing.T) {
	bot := stuck{release: make(chan struct{})}
	defer close(bot.release)
	turn := following() // prompted without a deadline: the clock starts later
	moved := make(chan time.Time, 1)
	deadline := time.Now().Add(2 * time.Second)
	moved <- deadline
	action, fault := decide(bot, &sync.Mutex{}, turn, moved, quiet)
	if time.Now().After(deadline) || action != turn.Legal[0] || fault != pb.BotFault_BOT_FAULT_TIMEOUT {
		t.Errorf("got %s, %v, %v after the deadline", ActionText(action), fault, time.Since(deadline))
	}
}

func TestAPanicOrAnIllegalAnswerIsReplacedAndReported(t *testing.T) {
	cases := map[pb.BotFault]Bot{
		pb.BotFault_BOT_FAULT_ERROR:   BotFunc(func(*Turn) *Action { panic("no idea") }),
		pb.BotFault_BOT_FAULT_INVALID: BotFunc(func(*Turn) *Action { return play(pb.Rank_RANK_ACE, pb.Suit_SUIT_CLUBS) }),
	}
	for want, bot := range cases {
		turn := following()
		action, fault := decide(bot, &sync.Mutex{}, turn, nil, quiet)
		if action != turn.Legal[0] || fault != want {
			t.Errorf("want %v: got %s, %v", want, ActionText(action), fault)
		}
	}
}

func TestCountsTakeTheirNounInTheRightNumber(t *testing.T) {
	if got := counted(1, "match") + ", " + counted(3, "match") + ", " + counted(0, "action"); got != "1 match, 3 matches, 0 actions" {
		t.Errorf("got %s", got)
	}
}

func TestCodesAreNamedAsTheContractNamesThem(t *testing.T) {
	if got := codeName(codes.ResourceExhausted); got != "RESOURCE_EXHAUSTED" {
		t.Errorf("got %s", got)
	}
}

func TestALostConnectionIsRetriedUntilTheLastDelay(t *testing.T) {
	rc := &reconnection{server: "127.0.0.1:1", what: "seat"}
	if _, err := rc.after(errStreamEnded); err != nil {
		t.Errorf("a stream ended by the server is a lost connection: %v", err)
	}
	for i := 0; i < len(retryDelays); i++ {
		_, _ = rc.after(errStreamEnded)
	}
	if _, err := rc.after(errStreamEnded); err == nil {
		t.Error("no giving up after the last delay")
	}
}
